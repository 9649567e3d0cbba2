#!/usr/bin/python3
"""check_page.py - reads the woven page as a reader would, in headless Chromium.

    /usr/bin/python3 tests/browser/check_page.py site/index.html

Drives Debian's chromium through Debian's chromedriver with Debian's
python3-selenium (run it with /usr/bin/python3, not a python without Debian's
packages). The browser starts headless with a fresh profile, no network
services and no sandbox (CI runs as root). Every check is reported; the
last line is "check-browser: N passed, M failed" and the exit status is
non-zero when any check failed.

What it checks, as a reader would meet it:
  - the page loads with no console error and fetches nothing (it is
    self-contained: no request other than data: and the file itself);
  - every figure is an inline <svg> that figures.js made interactive;
    clicking each key entry hides its series and clicking again shows it;
    hovering a value point (or, in a figure without any, the plot area)
    shows a tip with a number;
  - chunks fold: "fold all" folds every chunk, a click on a folded chunk's
    header opens it, a jump to an anchor inside a folded chunk opens it,
    "as written" restores the chapters' folds;
  - every href="#..." on the page (HTML links and SVG references) names an
    element that exists, and no id is used twice;
  - the citation box, the reproduce box and the citation_* meta tags exist;
  - on a phone-sized window the page does not scroll sideways.
"""

import os
import shutil
import sys
import tempfile
import time

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.actions.action_builder import ActionBuilder

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-dev-shm-usage", "--window-size=1280,900"]


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
            print("ok      " + what)
        else:
            self.failed += 1
            print("FAILED  " + what + (": " + detail if detail else ""))
        return ok


def start_browser(profile):
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS + ["--user-data-dir=" + profile]:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)


def console_errors(driver):
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def scroll_to(driver, el):
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", el)


def center(driver, el):
    """The viewport coordinates of an element's centre (SVG included)."""
    return driver.execute_script("""
        var r = arguments[0].getBoundingClientRect();
        return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)];""", el)


def pointer_to(driver, xy, click=False):
    """Moves the mouse to viewport coordinates, and clicks there if asked."""
    actions = ActionBuilder(driver)
    actions.pointer_action.move_to_location(int(xy[0]), int(xy[1]))
    if click:
        actions.pointer_action.click()
    actions.perform()


def wait_for(predicate, timeout=3.0):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def check_load(driver, c):
    errors = console_errors(driver)
    c.check(not errors, "no console errors while loading", "; ".join(errors))
    fetched = driver.execute_script("""
        return performance.getEntriesByType('resource')
          .map(function (r) { return r.name; })
          .filter(function (n) { return !/^(data|blob|about):/.test(n); });""")
    c.check(not fetched, "the page fetches nothing (self-contained)", ", ".join(fetched[:5]))
    undone = driver.execute_script(
        "return document.body.innerText.match(/\\?\\?[\\w.:-]+\\?\\?/g) || [];")
    c.check(not undone, "no unresolved ??placeholder?? in the text", ", ".join(undone[:5]))


def check_links(driver, c):
    broken = driver.execute_script("""
        var bad = [];
        var all = document.querySelectorAll('[href^="#"], [*|href^="#"]');
        all.forEach(function (el) {
          var h = el.getAttribute('href') || el.getAttributeNS('http://www.w3.org/1999/xlink', 'href');
          if (!h || h.charAt(0) !== '#' || h === '#') return;
          var id = h.slice(1);
          try { id = decodeURIComponent(id); } catch (e) {}
          if (!document.getElementById(id)) bad.push(h);
        });
        return bad;""")
    total = driver.execute_script(
        "return document.querySelectorAll('[href^=\"#\"], [*|href^=\"#\"]').length;")
    c.check(total > 0 and not broken,
            "every in-page link (%d) resolves to an element id" % total,
            "%d broken: %s" % (len(broken), ", ".join(sorted(set(broken))[:10])))
    dups = driver.execute_script("""
        var seen = {}, dup = [];
        document.querySelectorAll('[id]').forEach(function (el) {
          if (seen[el.id]) dup.push(el.id); seen[el.id] = true;
        });
        return dup;""")
    c.check(not dups, "no id is used twice", ", ".join(sorted(set(dups))[:10]))


def visible(driver, el):
    return driver.execute_script(
        "return getComputedStyle(arguments[0]).visibility !== 'hidden';", el)


def check_figures(driver, c):
    figures = driver.find_elements("css selector", "figure.plot")
    c.check(len(figures) > 0, "the page has figures (%d)" % len(figures))
    for fig in figures:
        name = fig.get_attribute("id")
        svgs = fig.find_elements("css selector", ":scope > svg")
        if not c.check(len(svgs) == 1, name + ": the figure is an inline <svg>"):
            continue
        svg = svgs[0]
        c.check("gp-ready" in (svg.get_attribute("class") or ""),
                name + ": figures.js made it interactive")
        leftovers = driver.execute_script("""
            var n = 0;
            arguments[0].querySelectorAll('*').forEach(function (el) {
              for (var i = 0; i < el.attributes.length; i++)
                if (/^on/i.test(el.attributes[i].name)) n++;
              if (el.tagName.toLowerCase() === 'script') n++;
            });
            return n;""", svg)
        c.check(leftovers == 0, name + ": none of gnuplot's own scripts or handlers is left",
                "%d left" % leftovers)
        scroll_to(driver, svg)
        check_toggles(driver, c, name, svg)
        check_hover(driver, c, name, svg, fig)


def check_toggles(driver, c, name, svg):
    plots = svg.find_elements("css selector", "g.gp-plot")
    keyed = [p for p in plots if p.find_elements("css selector", "g.gp-keyentry")]
    c.check(len(keyed) > 0, name + ": the key has clickable entries (%d)" % len(keyed))
    for plot in keyed:
        title = plot.get_attribute("data-title") or plot.get_attribute("id")
        entry = plot.find_elements("css selector", "g.gp-keyentry")[0]
        # a drawn part of the series that is not its key entry
        mark = driver.execute_script("""
            var plot = arguments[0];
            var all = plot.querySelectorAll('path, use, rect, polygon, circle');
            for (var i = 0; i < all.length; i++)
              if (!all[i].closest('.gp-keyentry')) return all[i];
            return null;""", plot)
        if not c.check(mark is not None, "%s: series %s draws something" % (name, title)):
            continue
        pointer_to(driver, center(driver, entry), click=True)
        hidden = wait_for(lambda: not visible(driver, mark))
        c.check(hidden and visible(driver, entry),
                "%s: clicking the key entry %s hides the series, not the entry" % (name, title))
        pointer_to(driver, center(driver, entry), click=True)
        c.check(wait_for(lambda: visible(driver, mark)),
                "%s: clicking %s again shows the series" % (name, title))


def check_hover(driver, c, name, svg, fig):
    tip_text = lambda: driver.execute_script("""
        var t = arguments[0].querySelector('.gp-tip');
        return t && !t.hidden ? t.textContent : null;""", fig)
    # The value point farthest from any other, so that it alone is under the pointer.
    point = driver.execute_script("""
        var pts = Array.prototype.filter.call(arguments[0].querySelectorAll('g.gp-point'),
          function (p) { return getComputedStyle(p).visibility !== 'hidden'; });
        var at = pts.map(function (p) {
          var r = p.querySelector('[transform]').getBoundingClientRect();
          return [r.left + r.width / 2, r.top + r.height / 2];
        });
        var best = null, bestD = -1;
        at.forEach(function (a, i) {
          var d = Infinity;
          at.forEach(function (b, j) { if (i !== j) d = Math.min(d, Math.hypot(a[0] - b[0], a[1] - b[1])); });
          if (d > bestD) { bestD = d; best = pts[i]; }
        });
        return best;""", svg)
    if point is not None:
        target = point.find_element("css selector", "[transform]")
        pointer_to(driver, center(driver, target))
        want = point.get_attribute("data-text")
        wait_for(lambda: tip_text() is not None)
        got = tip_text()
        c.check(got == want, name + ": hovering a value point shows its value",
                "tip %r, point %r" % (got, want))
    # The plot area, away from value points: the axis values under the pointer.
    where = driver.execute_script("""
        var svg = arguments[0], a = JSON.parse(svg.getAttribute('data-gnuplot') || 'null');
        if (!a) return null;
        var m = svg.getScreenCTM();
        var x = a.plot_xmin + 0.37 * (a.plot_xmax - a.plot_xmin);
        var y = a.plot_ytop + 0.83 * (a.plot_ybot - a.plot_ytop);
        return [m.a * x + m.e, m.d * y + m.f];""", svg)
    if c.check(where is not None, name + ": the figure carries gnuplot's axis mapping"):
        pointer_to(driver, where)
        wait_for(lambda: tip_text() is not None)
        got = tip_text() or ""
        c.check(any(ch.isdigit() for ch in got),
                name + ": hovering the plot area shows a value", "tip %r" % got)
    pointer_to(driver, (1, 1))


def check_chunks(driver, c):
    n = driver.execute_script("return document.querySelectorAll('details.chunk').length;")
    if not c.check(n > 0, "the page has code chunks (%d)" % n):
        return
    folded_by_author = driver.execute_script("""
        return Array.prototype.map.call(document.querySelectorAll('details.chunk.fold'),
                                        function (d) { return d.open; });""")
    c.check(all(not o for o in folded_by_author),
            "chunks marked .fold start folded (%d)" % len(folded_by_author))
    fold = driver.find_elements("css selector", '.chunk-controls button[data-chunks="fold"]')
    if not c.check(len(fold) == 1, "the fold-all control exists"):
        return
    scroll_to(driver, fold[0])
    fold[0].click()
    c.check(driver.execute_script(
        "return Array.prototype.every.call(document.querySelectorAll('details.chunk'),"
        " function (d) { return !d.open; });"), "fold all folds every chunk")
    # A click on a folded chunk's header (beside its links) opens it.
    chunk = driver.find_elements("css selector", "details.chunk")[n // 2]
    summary = chunk.find_element("css selector", "summary")
    scroll_to(driver, summary)
    box = driver.execute_script("""
        var r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.height];""", summary)
    pointer_to(driver, (box[0] + 6, box[1] + box[2] / 2), click=True)
    c.check(wait_for(lambda: chunk.get_attribute("open") is not None),
            "a click on a folded chunk's header opens it")
    # A jump into a folded chunk opens it: a link, then the address bar.
    link = driver.execute_script("""
        var links = document.querySelectorAll('a.chunk-link');
        for (var i = 0; i < links.length; i++) {
          var t = document.getElementById(links[i].getAttribute('href').slice(1));
          if (t && !t.open && !links[i].closest('details:not([open])')) return links[i];
        }
        return null;""")
    if c.check(link is not None, "there is a link to a folded chunk"):
        target = link.get_attribute("href").split("#", 1)[1]
        scroll_to(driver, link)
        link.click()
        c.check(wait_for(lambda: driver.execute_script(
            "return document.getElementById(arguments[0]).open;", target)),
            "following a link to a folded chunk opens it")
    hidden_id = driver.execute_script("""
        var d = document.querySelector('details.chunk:not([open])');
        return d ? d.id : null;""")
    if hidden_id:
        driver.execute_script("location.hash = arguments[0];", hidden_id)
        c.check(wait_for(lambda: driver.execute_script(
            "return document.getElementById(arguments[0]).open;", hidden_id)),
            "arriving at #%s opens the folded chunk" % hidden_id)
    default = driver.find_element("css selector", '.chunk-controls button[data-chunks="default"]')
    scroll_to(driver, default)
    default.click()
    c.check(driver.execute_script("""
        return Array.prototype.every.call(document.querySelectorAll('details.chunk'),
          function (d) { return d.open === !d.classList.contains('fold'); });"""),
        "\"as written\" restores the chapters' folds")


def check_reader_boxes(driver, c):
    meta = driver.execute_script("""
        var get = function (n) {
          return Array.prototype.map.call(document.querySelectorAll('meta[name="' + n + '"]'),
                                          function (m) { return m.content; });
        };
        return {title: get('citation_title'), author: get('citation_author'),
                date: get('citation_publication_date')};""")
    c.check(all(len(v) > 0 and all(x.strip() for x in v) for v in meta.values()),
            "citation_title, citation_author and citation_publication_date meta tags",
            repr(meta))
    bib = driver.execute_script(
        "var b = document.getElementById('citation-bibtex'); return b ? b.textContent : '';")
    c.check(bib.startswith("@") and "title" in bib and "author" in bib,
            "the cite box holds a BibTeX entry")
    plain = driver.execute_script(
        "var p = document.getElementById('citation-plain'); return p ? p.textContent : '';")
    c.check(len(plain) > 20, "the cite box holds a plain-text citation")
    repro = driver.execute_script(
        "var r = document.getElementById('reproduce'); return r ? r.textContent : '';")
    c.check("make paper" in repro and "make test" in repro,
            "the reproduce box gives make paper and make test")


def check_phone(driver, c):
    driver.set_window_size(390, 844)
    time.sleep(0.2)
    widths = driver.execute_script(
        "return [document.documentElement.scrollWidth, window.innerWidth];")
    c.check(widths[0] <= widths[1] + 1,
            "on a phone-sized window the page does not scroll sideways",
            "page %dpx wide in a %dpx window" % tuple(widths))


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    page = os.path.abspath(argv[1])
    if not os.path.exists(page):
        print("check-browser: no such page: " + page)
        return 2
    c = Checks()
    profile = tempfile.mkdtemp(prefix="ipctax-chromium-")
    driver = None
    try:
        driver = start_browser(profile)
        driver.get("file://" + page)
        wait_for(lambda: driver.execute_script("return document.readyState") == "complete")
        check_load(driver, c)
        check_links(driver, c)
        check_figures(driver, c)
        check_chunks(driver, c)
        check_reader_boxes(driver, c)
        check_phone(driver, c)
        errors = console_errors(driver)
        c.check(not errors, "no console errors while reading", "; ".join(errors))
    except WebDriverException as e:
        c.check(False, "the browser ran the checks", str(e).splitlines()[0])
    finally:
        if driver is not None:
            driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
    print("check-browser: %d passed, %d failed" % (c.passed, c.failed))
    return 1 if c.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
