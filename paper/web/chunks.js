/* chunks.js - the reader's controls for the literate program's chunks.
 *
 * paper/filters/chunks.lua makes every chunk a <details class="chunk">,
 * folded (and of class "fold") when the rule at the top of that filter
 * says so: .fold on the block, its chapter or its part, or boilerplate;
 * .open keeps it open. This script:
 *
 *  - opens whatever hides the target of a jump: following a link, or
 *    arriving with #anchor in the address, to an element inside a folded
 *    chunk (or to the folded chunk itself) unfolds it first, then scrolls;
 *  - adds "fold all" / "unfold all" / "as written" buttons above the table
 *    of contents, for a reader who wants only the prose, or all the code;
 *  - unfolds every chunk while the page is printed, and restores it after;
 *  - tells, in a folded chunk's header, how many lines it holds (counted
 *    here, so that the page does not carry the count for every chunk).
 */
(function () {
  "use strict";

  function chunks() {
    return Array.prototype.slice.call(document.querySelectorAll("details.chunk"));
  }

  /* Opens every closed <details> from el up; true if one was closed. */
  function reveal(el) {
    var opened = false;
    for (var node = el; node; node = node.parentElement) {
      if (node.tagName === "DETAILS" && !node.open) {
        node.open = true;
        opened = true;
      }
    }
    return opened;
  }

  function targetOf(hash) {
    if (!hash || hash.length < 2) return null;
    var id;
    try {
      id = decodeURIComponent(hash.slice(1));
    } catch (e) {
      id = hash.slice(1);
    }
    return document.getElementById(id);
  }

  function revealHash() {
    var el = targetOf(window.location.hash);
    if (el && reveal(el)) el.scrollIntoView();
  }

  /* A click on an in-page link: open the target before the browser scrolls
     to it, so that it scrolls to where the target will be. */
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest('a[href^="#"]');
    if (!a) return;
    var el = targetOf(a.getAttribute("href"));
    if (!el) return;
    reveal(el);
  }, true);
  window.addEventListener("hashchange", revealHash);

  function setAll(open) {
    chunks().forEach(function (d) {
      d.open = open === null ? !d.classList.contains("fold") : open;
    });
  }

  function controls() {
    var toc = document.getElementById("TOC");
    if (!toc || chunks().length === 0) return;
    var bar = document.createElement("div");
    bar.className = "chunk-controls";
    bar.appendChild(document.createTextNode("Code chunks: "));
    [["fold all", false], ["unfold all", true], ["as written", null]].forEach(function (b) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = b[0];
      button.setAttribute("data-chunks", b[1] === null ? "default" : (b[1] ? "unfold" : "fold"));
      button.addEventListener("click", function () { setAll(b[1]); });
      bar.appendChild(button);
    });
    toc.insertBefore(bar, toc.firstChild);
  }

  /* Printing shows all code; the folds come back afterwards. */
  var beforePrint = null;
  window.addEventListener("beforeprint", function () {
    beforePrint = chunks().map(function (d) { return d.open; });
    setAll(true);
  });
  window.addEventListener("afterprint", function () {
    if (!beforePrint) return;
    chunks().forEach(function (d, i) { d.open = beforePrint[i]; });
    beforePrint = null;
  });

  /* The page indents code with tabs, four columns wide, to weigh less;
     what a reader copies out of a chunk is indented with spaces, as in
     code/. */
  document.addEventListener("copy", function (event) {
    var selection = window.getSelection();
    if (!selection || selection.rangeCount === 0 || !event.clipboardData) return;
    var node = selection.getRangeAt(0).commonAncestorContainer;
    var element = node.nodeType === 1 ? node : node.parentElement;
    if (!element || !element.closest("pre")) return;
    event.clipboardData.setData("text/plain", selection.toString().replace(/^\t+/gm,
      function (tabs) { return new Array(tabs.length * 4 + 1).join(" "); }));
    event.preventDefault();
  });

  function countLines() {
    chunks().forEach(function (d) {
      var summary = d.querySelector("summary"), code = d.querySelector("pre code");
      if (!summary || !code) return;
      var n = code.textContent.split("\n").length;
      var span = document.createElement("span");
      span.className = "chunk-lines";
      span.textContent = n + (n === 1 ? " line" : " lines");
      summary.appendChild(document.createTextNode(" "));
      summary.appendChild(span);
    });
  }

  function init() {
    countLines();
    controls();
    revealHash();
  }

  window.ipctaxWhole(init);   /* pack.js: once Parts II and III are unpacked */
})();
