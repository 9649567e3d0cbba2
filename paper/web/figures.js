/* figures.js - makes the page's gnuplot figures interactive.
 *
 * paper/filters/figures.lua puts each figure's SVG inline and leaves in it
 * what gnuplot knew (see that filter): series as <g class="gp-plot"
 * data-title>, their key entries as <g class="gp-keyentry">, points that
 * carry a value as <g class="gp-point" data-text>, and the axes as
 * data-gnuplot on the <svg>. This script, the only one that touches the
 * figures, adds to every <svg class="gp-figure"> on the page:
 *
 *  - series toggles: clicking a key entry (or Enter/Space on it) hides or
 *    shows its series; a series is a titled plot item together with the
 *    untitled items that follow it (its value points, a band, the rings on
 *    the points its fit left out), so one click hides all of them. A
 *    series' name is its key entry's text (gnuplot's SVG titles every item
 *    "gnuplot_plot_N"), and each toggle's label says it. A key entry that
 *    draws nothing but itself (gnuplot's keyentry, a legend) is no toggle;
 *  - enlarging: a button under each figure shows it as large as the window
 *    allows, with its toggles and tips; Escape or the button again brings
 *    it back;
 *  - values on hover: over a value point (gnuplot's "with labels hypertext",
 *    within a few pixels), a tip shows that point's text; elsewhere in the
 *    plot area, a tip shows the axis values under the pointer, read
 *    through gnuplot's own axis mapping (linear or logarithmic).
 *
 * Every figure keeps its own state; nothing is global.
 */
(function () {
  "use strict";

  var SNAP_PX = 16;      /* a value point this close (screen pixels) is "under" the pointer */
  var SVG_NS = "http://www.w3.org/2000/svg";

  function translateOf(el) {
    var node = el.getAttribute("transform") ? el : el.querySelector("[transform]");
    if (!node) return null;
    var m = /translate\(\s*([-\d.eE]+)[\s,]+([-\d.eE]+)\s*\)/.exec(node.getAttribute("transform"));
    return m ? { x: parseFloat(m[1]), y: parseFloat(m[2]) } : null;
  }

  /* A number shown to the resolution of one pixel of its axis. */
  function format(value, span, pixels, log) {
    if (!isFinite(value)) return String(value);
    var digits;
    if (log) {
      digits = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value) || 1)));
    } else {
      var step = Math.abs(span) / Math.max(pixels, 1);
      digits = step > 0 ? Math.max(0, -Math.floor(Math.log10(step))) : 0;
    }
    var text = value.toLocaleString("en-US", { maximumFractionDigits: Math.min(digits, 6),
                                               minimumFractionDigits: 0 });
    return text.replace(/^-/, "\u2212");
  }

  /* Pixel position in the plot area -> axis value, as gnuplot_svg.js maps it. */
  function axisValue(frac, min, max, log) {
    if (log) return Math.exp(Math.log(min) + frac * (Math.log(max) - Math.log(min)));
    return min + frac * (max - min);
  }

  function Figure(svg) {
    this.svg = svg;
    this.figure = svg.closest("figure") || svg.parentNode;
    try {
      this.axes = JSON.parse(svg.getAttribute("data-gnuplot") || "null");
    } catch (e) {
      this.axes = null;
    }
    this.series = [];
    this.points = [];
    this.collectSeries();
    this.makeToggles();
    this.makeTip();
    svg.classList.add("gp-ready");
  }

  Figure.prototype.collectSeries = function () {
    var self = this;
    var current = null;
    Array.prototype.forEach.call(this.svg.querySelectorAll("g.gp-plot"), function (plot) {
      var entries = plot.querySelectorAll("g.gp-keyentry");
      if (entries.length > 0 || !current) {
        var title = plot.getAttribute("data-title") ||
          (entries.length > 0 ? entries[0].textContent.replace(/\s+/g, " ").trim() : "");
        current = { title: title, plots: [], entries: entries, hidden: false };
        self.series.push(current);
      }
      current.plots.push(plot);
      Array.prototype.forEach.call(plot.querySelectorAll("g.gp-point"), function (point) {
        var at = translateOf(point);
        if (at) self.points.push({ x: at.x, y: at.y, text: point.getAttribute("data-text"),
                                   series: current, el: point });
      });
    });
  };

  /* A key entry is clicked where its text and sample are, whatever is drawn
     over it (a key often sits on the data): the figure listens for clicks
     and finds the entry by position. */
  /* Whether a series draws anything besides its key entries. */
  function drawsData(series) {
    return series.plots.some(function (plot) {
      var marks = plot.querySelectorAll("path, use, rect, polygon, circle, text, image");
      for (var i = 0; i < marks.length; i++)
        if (!marks[i].closest(".gp-keyentry")) return true;
      return false;
    });
  }

  Figure.prototype.makeToggles = function () {
    var self = this;
    this.series.forEach(function (series) {
      if (series.entries.length === 0) return;
      if (!drawsData(series)) {
        series.legend = true;
        Array.prototype.forEach.call(series.entries, function (entry) {
          entry.classList.add("gp-legend");
        });
        return;
      }
      var box = null;
      Array.prototype.forEach.call(series.entries, function (entry) {
        var b = entry.getBBox();
        if (b.width === 0 && b.height === 0) return;
        if (!box) { box = { x1: b.x, y1: b.y, x2: b.x + b.width, y2: b.y + b.height }; return; }
        box.x1 = Math.min(box.x1, b.x); box.y1 = Math.min(box.y1, b.y);
        box.x2 = Math.max(box.x2, b.x + b.width); box.y2 = Math.max(box.y2, b.y + b.height);
      });
      var first = series.entries[0];
      if (box) {
        box.x1 -= 4; box.y1 -= 3; box.x2 += 4; box.y2 += 3;
        series.box = box;
        var hit = document.createElementNS(SVG_NS, "rect");
        hit.setAttribute("class", "gp-keyhit");
        hit.setAttribute("x", box.x1);
        hit.setAttribute("y", box.y1);
        hit.setAttribute("width", box.x2 - box.x1);
        hit.setAttribute("height", box.y2 - box.y1);
        hit.setAttribute("fill", "transparent");
        hit.setAttribute("stroke", "none");
        first.insertBefore(hit, first.firstChild);
      }
      first.setAttribute("tabindex", "0");
      first.setAttribute("role", "button");
      first.setAttribute("aria-pressed", "true");
      first.setAttribute("aria-label", "show or hide the series " + (series.title || "(untitled)"));
      first.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          self.toggle(series);
        }
      });
    });
    this.svg.addEventListener("click", function (e) {
      var series = self.keyAt(self.toSvg(e));
      if (series) self.toggle(series);
    });
  };

  Figure.prototype.toSvg = function (e) {
    var ctm = this.svg.getScreenCTM();
    if (!ctm) return null;
    var inv = ctm.inverse();
    return { x: inv.a * e.clientX + inv.c * e.clientY + inv.e,
             y: inv.b * e.clientX + inv.d * e.clientY + inv.f, scale: ctm.a };
  };

  Figure.prototype.keyAt = function (p) {
    if (!p) return null;
    for (var i = 0; i < this.series.length; i++) {
      if (this.series[i].legend) continue;
      var b = this.series[i].box;
      if (b && p.x >= b.x1 && p.x <= b.x2 && p.y >= b.y1 && p.y <= b.y2) return this.series[i];
    }
    return null;
  };

  Figure.prototype.toggle = function (series) {
    series.hidden = !series.hidden;
    series.plots.forEach(function (plot) {
      if (series.hidden) plot.setAttribute("visibility", "hidden");
      else plot.removeAttribute("visibility");
    });
    Array.prototype.forEach.call(series.entries, function (entry) {
      entry.classList.toggle("gp-off", series.hidden);
    });
    series.entries[0].setAttribute("aria-pressed", series.hidden ? "false" : "true");
    this.hideTip();
  };

  Figure.prototype.makeTip = function () {
    var self = this;
    this.tip = document.createElement("div");
    this.tip.className = "gp-tip";
    this.tip.hidden = true;
    this.tip.setAttribute("role", "status");
    this.figure.appendChild(this.tip);
    this.ring = document.createElementNS(SVG_NS, "circle");
    this.ring.setAttribute("class", "gp-ring");
    this.ring.setAttribute("r", "6");
    this.ring.setAttribute("visibility", "hidden");
    this.svg.appendChild(this.ring);
    var move = function (e) { self.pointer(e); };
    this.svg.addEventListener("pointermove", move);
    this.svg.addEventListener("pointerdown", move);
    this.svg.addEventListener("pointerleave", function () { self.hideTip(); });
  };

  Figure.prototype.hideTip = function () {
    this.tip.hidden = true;
    this.ring.setAttribute("visibility", "hidden");
  };

  /* Shows the tip near (x, y), given in the SVG's own coordinates. */
  Figure.prototype.showTip = function (x, y, text, kind) {
    var ctm = this.svg.getScreenCTM();
    var fig = this.figure.getBoundingClientRect();
    this.tip.textContent = text;
    this.tip.className = "gp-tip gp-tip-" + kind;
    this.tip.hidden = false;
    var left = ctm.a * x + ctm.e - fig.left + 12;
    var top = ctm.d * y + ctm.f - fig.top - this.tip.offsetHeight - 10;
    if (left + this.tip.offsetWidth > fig.width) left = Math.max(0, left - this.tip.offsetWidth - 24);
    if (top < 0) top = ctm.d * y + ctm.f - fig.top + 14;
    this.tip.style.left = left + "px";
    this.tip.style.top = top + "px";
  };

  Figure.prototype.pointer = function (e) {
    var p = this.toSvg(e);
    if (!p) return;
    var x = p.x, y = p.y;
    var overKey = this.keyAt(p) !== null;
    this.svg.style.cursor = overKey ? "pointer" : "";
    if (overKey) {
      this.hideTip();
      return;
    }
    /* The nearest value point of a visible series. */
    var best = null, bestD = Infinity;
    this.points.forEach(function (p) {
      if (p.series.hidden) return;
      var d = Math.hypot(p.x - x, p.y - y);
      if (d < bestD) { bestD = d; best = p; }
    });
    if (best && bestD * p.scale <= SNAP_PX) {
      this.ring.setAttribute("cx", best.x);
      this.ring.setAttribute("cy", best.y);
      this.ring.setAttribute("visibility", "visible");
      this.showTip(best.x, best.y, best.text, "point");
      return;
    }
    this.ring.setAttribute("visibility", "hidden");
    var a = this.axes;
    if (!a || x < a.plot_xmin || x > a.plot_xmax || y < a.plot_ytop || y > a.plot_ybot) {
      this.tip.hidden = true;
      return;
    }
    var fx = (x - a.plot_xmin) / (a.plot_xmax - a.plot_xmin);
    var fy = (a.plot_ybot - y) / (a.plot_ybot - a.plot_ytop);
    var w = a.plot_xmax - a.plot_xmin, h = a.plot_ybot - a.plot_ytop;
    var logx = !!a.plot_logaxis_x, logy = !!a.plot_logaxis_y;
    var parts = [
      "x = " + format(axisValue(fx, a.plot_axis_xmin, a.plot_axis_xmax, logx),
                      a.plot_axis_xmax - a.plot_axis_xmin, w, logx),
      "y = " + format(axisValue(fy, a.plot_axis_ymin, a.plot_axis_ymax, logy),
                      a.plot_axis_ymax - a.plot_axis_ymin, h, logy)
    ];
    if (typeof a.plot_axis_y2min === "number" && typeof a.plot_axis_y2max === "number") {
      parts.push("y2 = " + format(axisValue(fy, a.plot_axis_y2min, a.plot_axis_y2max, false),
                                  a.plot_axis_y2max - a.plot_axis_y2min, h, false));
    }
    this.showTip(x, y, parts.join("   "), "axes");
  };

  /* Enlarging: the figure itself is shown over the page (its toggles and
     tips keep working), not a copy. */
  var enlarged = null;

  function setEnlarged(figure, button, on) {
    figure.classList.toggle("enlarged", on);
    document.documentElement.classList.toggle("figure-enlarged", on);
    button.textContent = on ? "close" : "enlarge";
    button.setAttribute("aria-expanded", on ? "true" : "false");
    enlarged = on ? { figure: figure, button: button } : null;
    if (on) button.focus();
  }

  function makeEnlarge(figure) {
    var cap = figure.querySelector("figcaption");
    if (!cap) return;
    var button = document.createElement("button");
    button.type = "button";
    button.className = "figure-enlarge";
    button.setAttribute("aria-expanded", "false");
    button.setAttribute("aria-label", "enlarge or close " + (figure.id ? "the figure " + figure.id
                                                                     : "this figure"));
    button.textContent = "enlarge";
    button.addEventListener("click", function () {
      if (enlarged && enlarged.figure !== figure) setEnlarged(enlarged.figure, enlarged.button, false);
      setEnlarged(figure, button, !figure.classList.contains("enlarged"));
    });
    cap.appendChild(button);
  }

  function init() {
    Array.prototype.forEach.call(document.querySelectorAll("svg.gp-figure"), function (svg) {
      try {
        new Figure(svg);
      } catch (e) {
        if (window.console) console.warn("figures.js: a figure stays static:", e);
      }
    });
    Array.prototype.forEach.call(document.querySelectorAll("figure.plot"), makeEnlarge);
    document.addEventListener("keydown", function (e) {
      if (e.key === "Escape" && enlarged) setEnlarged(enlarged.figure, enlarged.button, false);
    });
  }

  window.ipctaxWhole(init);   /* pack.js: once Parts II and III are unpacked */
})();
