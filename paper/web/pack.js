/* pack.js - makes the page whole before the other scripts start.
 *
 * The weave packs Parts II and III (code/tools/pack.c, described in the
 * appendix "One page, packed"): their HTML travels inside the page gzipped,
 * as base64 text in <script type="application/gzip" id="packed-data">,
 * inside a <div id="packed"> whose note says where else to read them. This
 * script inflates them with the browser's own DecompressionStream and puts
 * them where the div was. It is the first of the page's scripts, and the
 * others start through window.ipctaxWhole(init), which runs init once the
 * page is whole, so that search, permalinks, the contents' highlight and
 * the numbers' panels see all of it. The root element's data-whole
 * attribute says when that is ("yes"), or that the book could not be
 * unpacked ("no": the note stays). An address whose anchor lies in the
 * packed part is followed once the anchor exists.
 */
(function () {
  "use strict";

  var waiting = [];
  var whole = false;

  window.ipctaxWhole = function (init) {
    if (whole) init();
    else waiting.push(init);
  };

  function finish(state) {
    whole = true;
    document.documentElement.setAttribute("data-whole", state);
    waiting.splice(0).forEach(function (init) { init(); });
  }

  function anchor() {
    if (window.location.hash.length < 2) return null;
    try {
      return document.getElementById(decodeURIComponent(window.location.hash.slice(1)));
    } catch (e) {
      return null;
    }
  }

  function bytesOf(base64) {
    var text = window.atob(base64);
    var bytes = new Uint8Array(text.length);
    for (var i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }

  function unpack(box, data) {
    var stream = new Blob([bytesOf(data.textContent.trim())]).stream()
      .pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (html) {
      box.replaceWith(document.createRange().createContextualFragment(html));
    });
  }

  function start() {
    var box = document.getElementById("packed");
    var data = document.getElementById("packed-data");
    if (!box || !data) {
      finish("yes");
      return;
    }
    if (typeof DecompressionStream === "undefined") {
      finish("no");
      return;
    }
    var before = anchor();
    unpack(box, data).then(function () {
      finish("yes");
      var target = anchor();
      if (target && !before) target.scrollIntoView();
    }, function (e) {
      console.error("pack.js: the book could not be unpacked: " + e);
      finish("no");
    });
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
