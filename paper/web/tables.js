/* tables.js - no table is cut, whatever the window.
 *
 * A table (values.lua, crossref.lua) sits in a <div class="table-scroll">
 * that may use the free width right of the column, up to the window's edge
 * (style.css). A table still wider than that once scrolled sideways inside
 * its box, its last columns out of view with nothing to say they were there:
 * at 1,280 pixels the headline table's gate column, at 390 the claims'
 * verdicts. So a table that does not fit its box is set as a list of its
 * rows instead ("stacked": style.css), each cell under its column's name,
 * which every cell carries for that (data-label, from the table's header).
 * Whether a table fits is measured, not guessed, once the page is whole
 * and again whenever the window's width changes.
 */
(function () {
  "use strict";

  function label(table) {
    var names = Array.prototype.map.call(table.querySelectorAll("thead th"),
                                         function (th) { return th.textContent.trim(); });
    Array.prototype.forEach.call(table.querySelectorAll("tbody tr"), function (tr) {
      Array.prototype.forEach.call(tr.children, function (cell, i) {
        if (names[i]) cell.setAttribute("data-label", names[i]);
      });
    });
  }

  function fit(box) {
    box.classList.remove("stacked");
    var table = box.querySelector("table");
    if (table && table.scrollWidth > box.clientWidth + 1) box.classList.add("stacked");
  }

  function fitAll() {
    Array.prototype.forEach.call(document.querySelectorAll(".table-scroll"), fit);
  }

  window.ipctaxWhole(function () {
    Array.prototype.forEach.call(document.querySelectorAll(".table-scroll table"), label);
    fitAll();
    var width = window.innerWidth, pending = null;
    window.addEventListener("resize", function () {
      if (window.innerWidth === width) return;
      width = window.innerWidth;
      if (pending) window.cancelAnimationFrame(pending);
      pending = window.requestAnimationFrame(function () { pending = null; fitAll(); });
    });
    /* printing sets the page's width: fit to it, and back afterwards */
    window.addEventListener("beforeprint", fitAll);
    window.addEventListener("afterprint", fitAll);
  });
})();
