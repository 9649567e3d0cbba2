/* numbers.js - every number read from the data says where it comes from.
 *
 * values.lua marks each woven number with its key (data-k) and, for an
 * estimate, its interval, n, what n counts and the interval's coverage
 * (data-e="low;high;n;unit;coverage"); chunks.lua writes the page's table
 * of provenance, <script type="application/json" id="provenance">, from the
 * table the build gathers (paper/provenance.csv and the chapters' provenance
 * blocks): for each family of keys (a
 * pattern such as arch.*.ratio, where * is one dotted part of a key and **
 * any run of them; the first that matches is the key's), its unit, its
 * estimator, what n counts, the files and columns of data/ it is computed
 * from, and the anchor of the chunk that computes it.
 *
 * Clicking a number, or reaching it with the keyboard, opens a panel under
 * it with all of that: the key and the value, the interval and n, the unit,
 * the estimator, the data files (linked to the copies published beside the
 * page, data/FILE, so that site/ works on its own) and
 * their columns, the chunk (linked; chunks.js opens it if it is folded),
 * and the values file published beside the page (values.csv), where the key
 * can be looked up. Escape, the close button, or a click elsewhere closes
 * it.
 */
(function () {
  "use strict";

  var table = null;

  function load() {
    var el = document.getElementById("provenance");
    if (!el) return null;
    try {
      var t = JSON.parse(el.textContent);
    } catch (e) {
      return null;
    }
    t.families.forEach(function (f) {
      var re = f.k.replace(/[.+?^${}()|[\]\\]/g, "\\$&")
                  .replace(/\*\*/g, "\u0000").replace(/\*/g, "[^.]+").replace(/\u0000/g, ".+");
      f.re = new RegExp("^" + re + "$");
    });
    return t;
  }

  function familyOf(key) {
    for (var i = 0; i < table.families.length; i++)
      if (table.families[i].re.test(key)) return table.families[i];
    return null;
  }

  function add(parent, tag, text, cls) {
    var el = document.createElement(tag);
    if (text !== undefined && text !== null) el.textContent = text;
    if (cls) el.className = cls;
    parent.appendChild(el);
    return el;
  }

  function link(parent, href, text) {
    var a = add(parent, "a", text);
    a.href = href;
    return a;
  }

  function row(dl, term) {
    add(dl, "dt", term);
    return add(dl, "dd");
  }

  /* The value as printed, without the interval that a .ci number adds. */
  function valueOf(el) {
    return el.textContent.split("\u00a0[")[0].trim();
  }

  function fill(panel, el) {
    var key = el.getAttribute("data-k"), f = familyOf(key);
    var head = add(panel, "p", null, "num-panel-head");
    add(head, "code", key);
    head.appendChild(document.createTextNode(" = "));
    add(head, "strong", valueOf(el));
    var dl = add(panel, "dl");
    var e = (el.getAttribute("data-e") || "").split(";");
    if (e.length >= 3) {
      var units = e[3] || (f && f.n) || "";
      row(dl, "95% interval").textContent = "[" + e[0] + ", " + e[1] + "], n = " + e[2]
        + (units ? " " + units : "")
        + (e[4] ? "; coverage " + e[4] + "%" : "");
    }
    if (!f) {
      row(dl, "From").textContent = "values.csv (no provenance declared)";
      return;
    }
    if (f.u) row(dl, "Unit").textContent = f.u;
    row(dl, "Estimator").textContent = table.estimators[f.e];
    var from = row(dl, "From");
    if (f.s.length === 0) from.textContent = "no file: a constant or a judgement of the program";
    f.s.forEach(function (i, n) {
      var s = table.sources[i];
      if (n > 0) from.appendChild(document.createTextNode("; "));
      link(from, "data/" + s[0], "data/" + s[0]);
      if (s[1].length > 0) from.appendChild(document.createTextNode(": " + s[1].join(", ")));
    });
    var chunk = document.getElementById(f.c);
    var name = chunk && chunk.querySelector("summary a.chunk-name");
    link(row(dl, "Computed in"), "#" + f.c, name ? name.textContent : f.c)
      .className = "num-panel-chunk";
    var listed = row(dl, "Listed in");
    link(listed, table.values, table.values);
    listed.appendChild(document.createTextNode(", beside this page"));
  }

  var panel = null, owner = null;

  function close(refocus) {
    if (!panel) return;
    panel.remove();
    if (owner) {
      owner.setAttribute("aria-expanded", "false");
      if (refocus) owner.focus();
    }
    panel = null;
    owner = null;
  }

  /* Under the number, inside the viewport. */
  function place(p, el) {
    var r = el.getBoundingClientRect(), parent = p.offsetParent || document.body;
    var base = parent.getBoundingClientRect();
    var left = r.left - base.left - parent.clientLeft + parent.scrollLeft;
    var top = r.bottom - base.top - parent.clientTop + parent.scrollTop + 4;
    p.style.left = "0px";
    p.style.top = top + "px";
    var width = p.offsetWidth, room = document.documentElement.clientWidth;
    var screenLeft = Math.min(r.left, room - width - 8);
    p.style.left = (left + Math.max(8, screenLeft) - r.left) + "px";
  }

  function open(el) {
    if (owner === el) return;
    close(false);
    owner = el;
    panel = document.createElement("div");
    panel.className = "num-panel";
    panel.id = "num-panel";
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-label", "where this number comes from");
    var x = add(panel, "button", "\u00d7", "num-panel-close");
    x.type = "button";
    x.setAttribute("aria-label", "close");
    x.addEventListener("click", function () { close(true); });
    fill(panel, el);
    el.parentNode.insertBefore(panel, el.nextSibling);
    el.setAttribute("aria-expanded", "true");
    place(panel, el);
  }

  function init() {
    table = load();
    if (!table) return;
    var numbers = document.querySelectorAll(".num[data-k]");
    Array.prototype.forEach.call(numbers, function (el) {
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "button");
      el.setAttribute("aria-expanded", "false");
      el.setAttribute("aria-controls", "num-panel");
      el.addEventListener("focus", function () { open(el); });
      el.addEventListener("click", function () { open(el); });
      el.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          if (owner === el) close(false); else open(el);
        }
      });
    });
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && panel) close(true);
    });
    document.addEventListener("click", function (e) {
      if (!panel) return;
      var t = e.target;
      if (t.closest && (t.closest(".num-panel") || t.closest(".num[data-k]") === owner)) {
        if (t.closest(".num-panel a")) close(false);
        return;
      }
      close(false);
    });
    /* Focus leaving both the number and its panel closes it. */
    document.addEventListener("focusin", function (e) {
      if (!panel) return;
      var t = e.target;
      if (t === owner || (t.closest && t.closest(".num-panel"))) return;
      if (!(t.closest && t.closest(".num[data-k]"))) close(false);
    });
    window.addEventListener("resize", function () { if (panel) place(panel, owner); });
  }

  window.ipctaxWhole(init);   /* pack.js: once Parts II and III are unpacked */
})();
