/* cite.js - a "copy" button beside each citation in the "Cite this paper"
 * box (paper/filters/reader.lua), so that citing is one click. Where the
 * clipboard is not available (some browsers refuse it to file:// pages),
 * the button selects the text instead, for the reader to copy.
 */
(function () {
  "use strict";

  function select(el) {
    var range = document.createRange();
    range.selectNodeContents(el);
    var sel = window.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }

  function addCopy(source, label) {
    var el = document.getElementById(source);
    if (!el) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "copy-button";
    button.textContent = "copy " + label;
    button.addEventListener("click", function () {
      var text = el.textContent;
      var done = function () { button.textContent = "copied"; };
      var fallback = function () { select(el); button.textContent = "selected: press Ctrl+C"; };
      if (navigator.clipboard && navigator.clipboard.writeText) {
        navigator.clipboard.writeText(text).then(done, fallback);
      } else {
        fallback();
      }
    });
    var box = el.closest(".citation-bibtex") || el;
    box.parentNode.insertBefore(button, box.nextSibling);
  }

  function init() {
    addCopy("citation-plain", "citation");
    addCopy("citation-bibtex", "BibTeX");
  }

  window.ipctaxWhole(init);   /* pack.js: once Parts II and III are unpacked */
})();
