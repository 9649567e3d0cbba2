/* nav.js - finding one's way in a long page.
 *
 *  - Search, offline: a box at the top of the contents finds sections by
 *    their titles, chunks by their names, figures and tables by their
 *    captions, and paragraphs by their words. Its index is the page itself:
 *    built from the page's own headings, chunk headers, captions and
 *    paragraphs the first time the reader types, so that the page carries
 *    no second copy of its text. Every word of the query must occur
 *    (case, hyphens and underscores aside); titles and names come first.
 *    Enter follows the first result, the arrow keys move through them,
 *    Escape clears the box, and "/" anywhere on the page focuses it.
 *  - Permalinks: every heading, table and figure with an id gets a visible
 *    link to itself (a chunk's name already is one); the link's text is
 *    drawn by the style sheet, so the headings' text stays as written.
 *  - Contents that follow: the entry of the section being read is marked
 *    in the contents (aria-current) and, in the sidebar, kept in view.
 *  - On a narrow window the contents fold under a "Contents" button, so
 *    that the paper starts on the first screen; a jump from the contents
 *    folds them again.
 *
 * The style sheet (style.css) styles what this script adds; nothing here
 * depends on the other scripts, but it starts through pack.js's
 * window.ipctaxWhole, once the packed Parts II and III are in the page.
 */
(function () {
  "use strict";

  var MAX_TITLE_RESULTS = 20;
  var MAX_TEXT_RESULTS = 25;
  var SNIPPET = 70;            /* characters of context either side of a text hit */
  var READING_LINE = 90;       /* px from the top: the heading above it is "where the reader is" */
  var NARROW = "(max-width: 999.98px)";

  function normalize(s) {
    return s.toLowerCase().replace(/[-_\u2010-\u2015]/g, " ").replace(/\s+/g, " ");
  }

  /* An element's text without the permalinks this script added. */
  function textOf(el) {
    var copy = el.cloneNode(true);
    Array.prototype.forEach.call(copy.querySelectorAll(".permalink"), function (p) { p.remove(); });
    return copy.textContent.replace(/\s+/g, " ").trim();
  }

  function toc() { return document.getElementById("TOC"); }

  /* --- Permalinks ----------------------------------------------------- */

  function permalink(id, what) {
    var a = document.createElement("a");
    a.className = "permalink";
    a.href = "#" + id;
    a.setAttribute("aria-label", "link to this " + what);
    return a;
  }

  function addPermalinks() {
    Array.prototype.forEach.call(document.querySelectorAll("h1[id], h2[id], h3[id], h4[id]"),
      function (h) {
        if (h.closest("#TOC") || h.classList.contains("title")) return;
        h.appendChild(permalink(h.id, "section"));
      });
    Array.prototype.forEach.call(document.querySelectorAll("div.table[id] > .table-caption"),
      function (cap) { cap.appendChild(permalink(cap.parentNode.id, "table")); });
    Array.prototype.forEach.call(document.querySelectorAll("figure[id] > figcaption"),
      function (cap) { cap.insertBefore(permalink(cap.parentNode.id, "figure"), cap.firstChild); });
  }

  /* --- The index ---------------------------------------------------------- */

  var index = null;

  /* The heading a node sits under: its id and its "3.2 Title". */
  function buildIndex() {
    var entries = [], current = null;
    var selector = "h1[id], h2[id], h3[id], h4[id], details.chunk, figure.plot[id], " +
                   "div.table[id], p, li, dd, blockquote";
    Array.prototype.forEach.call(document.body.querySelectorAll(selector), function (el) {
      if (el.closest("#TOC, .search, .num-panel, pre, .reader-boxes, svg")) return;
      var tag = el.tagName;
      if (/^H[1-4]$/.test(tag)) {
        if (el.classList.contains("title")) return;
        current = { id: el.id, label: textOf(el) };
        entries.push({ kind: "section", id: el.id, label: current.label, rank: 0,
                       text: normalize(current.label) });
      } else if (tag === "DETAILS") {
        var name = el.querySelector("summary a.chunk-name");
        if (!name) return;
        entries.push({ kind: "chunk", id: el.id, label: name.textContent, rank: 1,
                       text: normalize(name.textContent) });
      } else if (tag === "FIGURE" || tag === "DIV") {
        var cap = el.querySelector("figcaption, .table-caption");
        if (!cap) return;
        var label = textOf(cap);
        entries.push({ kind: tag === "FIGURE" ? "figure" : "table", id: el.id, rank: 2,
                       label: label.length > 90 ? label.slice(0, 88) + "\u2026" : label,
                       text: normalize(label) });
      } else {
        if (el.closest("figcaption, .table-caption, li li") && tag !== "LI") return;
        var text = textOf(el);
        if (text.length < 3 || !current) return;
        entries.push({ kind: "text", el: el, id: current.id, label: current.label, rank: 3,
                       raw: text, text: normalize(text) });
      }
    });
    return entries;
  }

  function snippet(entry, words) {
    var text = entry.raw, low = normalize(text), at = low.indexOf(words[0]);
    if (at < 0) at = 0;
    var start = Math.max(0, at - SNIPPET), end = Math.min(text.length, at + words[0].length + SNIPPET);
    return (start > 0 ? "\u2026" : "") + text.slice(start, end) + (end < text.length ? "\u2026" : "");
  }

  function search(query) {
    if (!index) index = buildIndex();
    var words = normalize(query).trim().split(" ").filter(function (w) { return w.length > 0; });
    if (words.length === 0) return [];
    var titles = [], texts = [];
    for (var i = 0; i < index.length; i++) {
      var e = index[i], all = true;
      for (var w = 0; w < words.length && all; w++) all = e.text.indexOf(words[w]) >= 0;
      if (!all) continue;
      if (e.kind === "text") { if (texts.length < MAX_TEXT_RESULTS) texts.push(e); }
      else if (titles.length < MAX_TITLE_RESULTS) titles.push(e);
    }
    titles.sort(function (a, b) { return a.rank - b.rank; });
    return titles.concat(texts).map(function (e) {
      return { kind: e.kind, id: e.id, label: e.label, el: e.el || null,
               snippet: e.kind === "text" ? snippet(e, words) : null };
    });
  }

  /* --- The search box ------------------------------------------------------ */

  function jumpTo(result) {
    if (result.el) {
      result.el.scrollIntoView({ block: "center" });
      result.el.classList.add("search-hit");
      window.setTimeout(function () { result.el.classList.remove("search-hit"); }, 2500);
    }
  }

  function renderResults(list, status, results, query) {
    list.textContent = "";
    results.forEach(function (r) {
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = "#" + r.id;
      a.className = "search-result search-" + r.kind;
      var kind = document.createElement("span");
      kind.className = "search-kind";
      kind.textContent = r.kind === "text" ? "in" : r.kind;
      a.appendChild(kind);
      a.appendChild(document.createTextNode(" " + r.label));
      if (r.snippet) {
        var s = document.createElement("span");
        s.className = "search-snippet";
        s.textContent = r.snippet;
        a.appendChild(s);
      }
      a.addEventListener("click", function (e) {
        if (r.el) {
          e.preventDefault();
          history.replaceState(null, "", "#" + r.id);
          jumpTo(r);
        }
        foldContents(true);
      });
      li.appendChild(a);
      list.appendChild(li);
    });
    list.hidden = results.length === 0;
    status.textContent = query.trim() === "" ? "" :
      results.length === 0 ? "nothing found" :
      results.length + (results.length === 1 ? " result" : " results");
  }

  /* An element with the given attributes, appended to parent if one is given. */
  function element(tag, attrs, parent) {
    var el = document.createElement(tag);
    Object.keys(attrs).forEach(function (name) { el.setAttribute(name, attrs[name]); });
    if (parent) parent.appendChild(el);
    return el;
  }

  function makeSearch() {
    var nav = toc();
    if (!nav) return;
    var box = element("div", { "class": "search", role: "search" });
    var input = element("input", { type: "search", id: "search-input", autocomplete: "off",
      placeholder: "Search (press /)", "aria-controls": "search-results",
      "aria-label": "Search the sections, chunks, figures, tables and text" }, box);
    var status = element("p", { "class": "search-status", "aria-live": "polite" }, box);
    var list = element("ol", { id: "search-results", "class": "search-results" }, box);
    list.hidden = true;
    nav.insertBefore(box, nav.firstChild);

    var pending = null;
    input.addEventListener("input", function () {
      window.clearTimeout(pending);
      pending = window.setTimeout(function () {
        renderResults(list, status, search(input.value), input.value);
      }, 80);
    });
    input.addEventListener("keydown", function (e) {
      if (e.key === "Enter") {
        window.clearTimeout(pending);
        renderResults(list, status, search(input.value), input.value);
        var first = list.querySelector("a");
        if (first) { e.preventDefault(); first.click(); }
      } else if (e.key === "ArrowDown") {
        var a = list.querySelector("a");
        if (a) { e.preventDefault(); a.focus(); }
      } else if (e.key === "Escape") {
        input.value = "";
        renderResults(list, status, [], "");
      }
    });
    list.addEventListener("keydown", function (e) {
      var links = Array.prototype.slice.call(list.querySelectorAll("a"));
      var at = links.indexOf(document.activeElement);
      if (e.key === "ArrowDown" && at < links.length - 1) { e.preventDefault(); links[at + 1].focus(); }
      if (e.key === "ArrowUp") { e.preventDefault(); (at > 0 ? links[at - 1] : input).focus(); }
      if (e.key === "Escape") { e.preventDefault(); input.focus(); }
    });
    document.addEventListener("keydown", function (e) {
      if (e.key !== "/" || e.ctrlKey || e.metaKey || e.altKey) return;
      var t = e.target;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      e.preventDefault();
      foldContents(false);
      input.focus();
    });
  }

  /* --- The contents on a narrow window -------------------------------------- */

  var toggle = null;

  function foldContents(folded) {
    var nav = toc();
    if (!nav || !toggle) return;
    nav.classList.toggle("toc-folded", folded);
    toggle.setAttribute("aria-expanded", folded ? "false" : "true");
  }

  function makeToggle() {
    var nav = toc(), list = nav && nav.querySelector(":scope > ul");
    if (!list) return;
    if (!list.id) list.id = "toc-list";
    toggle = document.createElement("button");
    toggle.type = "button";
    toggle.className = "toc-toggle";
    toggle.textContent = "Contents";
    toggle.setAttribute("aria-controls", list.id);
    toggle.addEventListener("click", function () {
      foldContents(!nav.classList.contains("toc-folded"));
    });
    var title = nav.querySelector("#toc-title");
    nav.insertBefore(toggle, title || list);
    foldContents(true);
    list.addEventListener("click", function (e) {
      if (e.target.closest("a") && window.matchMedia(NARROW).matches) foldContents(true);
    });
  }

  /* --- Contents that follow the reader --------------------------------------- */

  function followReader() {
    var nav = toc();
    if (!nav) return;
    var entries = [];
    Array.prototype.forEach.call(nav.querySelectorAll(":scope > ul a[href^='#']"), function (a) {
      var id;
      try { id = decodeURIComponent(a.getAttribute("href").slice(1)); } catch (e) { return; }
      var h = document.getElementById(id);
      if (h) entries.push({ link: a, heading: h });
    });
    if (entries.length === 0) return;
    var current = null, queued = false;

    /* The last heading above the reading line (headings are in page order). */
    function locate() {
      var lo = 0, hi = entries.length - 1, found = -1;
      while (lo <= hi) {
        var mid = (lo + hi) >> 1;
        if (entries[mid].heading.getBoundingClientRect().top <= READING_LINE) { found = mid; lo = mid + 1; }
        else hi = mid - 1;
      }
      return found < 0 ? null : entries[found];
    }

    function update() {
      queued = false;
      var e = locate();
      if (e === current) return;
      if (current) {
        current.link.classList.remove("toc-current");
        current.link.removeAttribute("aria-current");
      }
      current = e;
      if (!e) return;
      e.link.classList.add("toc-current");
      e.link.setAttribute("aria-current", "location");
      /* In the sidebar, keep the entry in view. */
      if (getComputedStyle(nav).position === "fixed") {
        var r = e.link.getBoundingClientRect(), box = nav.getBoundingClientRect();
        if (r.top < box.top + 40 || r.bottom > box.bottom - 40)
          nav.scrollTop += r.top - box.top - nav.clientHeight / 3;
      }
    }

    window.addEventListener("scroll", function () {
      if (!queued) { queued = true; window.requestAnimationFrame(update); }
    }, { passive: true });
    window.addEventListener("resize", update);
    update();
  }

  function init() {
    addPermalinks();
    makeSearch();
    makeToggle();
    followReader();
  }

  window.ipctaxWhole(init);   /* pack.js: once Parts II and III are unpacked */
})();
