#!/usr/bin/python3
"""check_bibtex.py - the paper's BibTeX, as the weave wrote it, through bibtex.

    /usr/bin/python3 tests/check_bibtex.py build/woven/citation.bib

paper/filters/reader.lua writes the entry of the "Cite this paper" box to
build/woven/citation.bib. This runs TeX Live's bibtex on it with each of the
standard styles (plain, unsrt, alpha, abbrv), citing every entry, and fails
if bibtex stops, warns ("Warning--", a missing field a style requires) or
reports an error; then it checks that the entry names what a reader citing
this copy needs: a title, an author, a year, the version and the two
commits (the data's and the weave's).
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

STYLES = ["plain", "unsrt", "alpha", "abbrv"]


def run_bibtex(bib, style, work):
    shutil.copy(bib, os.path.join(work, "citation.bib"))
    with open(os.path.join(work, "paper.aux"), "w") as f:
        f.write("\\relax\n\\citation{*}\n\\bibstyle{%s}\n\\bibdata{citation}\n" % style)
    for stale in ("paper.bbl", "paper.blg"):
        if os.path.exists(os.path.join(work, stale)):
            os.remove(os.path.join(work, stale))
    proc = subprocess.run(["bibtex", "paper"], cwd=work, capture_output=True, text=True)
    log = proc.stdout + proc.stderr          # the .blg says the same, and more
    blg = os.path.join(work, "paper.blg")
    if os.path.exists(blg):
        with open(blg, errors="replace") as f:
            log = f.read()
    bbl = os.path.join(work, "paper.bbl")
    entries = 0
    if os.path.exists(bbl):
        with open(bbl, errors="replace") as f:
            entries = f.read().count("\\bibitem")
    return proc.returncode, log, entries


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    bib = argv[1]
    if not os.path.exists(bib):
        print("check-bibtex: no such file: %s (weave the page first)" % bib)
        return 2
    if shutil.which("bibtex") is None:
        print("check-bibtex: bibtex is not installed (Debian: texlive-binaries)")
        return 2
    with open(bib) as f:
        text = f.read()
    failed = 0
    work = tempfile.mkdtemp(prefix="ipctax-bibtex-")
    try:
        for style in STYLES:
            rc, log, entries = run_bibtex(bib, style, work)
            # bibtex's own words for trouble (the .blg's counts of built-in
            # functions, such as "warning$ -- 0", are not)
            problems = [line for line in log.splitlines()
                        if re.search(r"Warning--|There (was|were) \d+ (warning|error)|"
                                     r"I was expecting|I couldn't|I found no|Illegal|"
                                     r"---line \d+|Repeated entry|aborted", line)]
            if rc != 0 or problems or entries < 1:
                failed += 1
                print("FAILED  bibtex (%s): exit %d, %d entries" % (style, rc, entries))
                for line in problems:
                    print("          " + line)
            else:
                print("ok      bibtex (%s) reads %d entry without a warning" % (style, entries))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    needs = {
        "a title": r"^\s*title\s*=",
        "an author": r"^\s*author\s*=",
        "a year": r"^\s*year\s*=\s*\{?\d{4}",
        "the version": r"^\s*version\s*=\s*\{[^}]+\}",
        "the commit of the data": r"data measured at commit [0-9a-f]{7,}",
        "the commit of the weave": r"woven from commit [0-9a-f]{7,}",
    }
    for what, pattern in needs.items():
        if re.search(pattern, text, re.MULTILINE):
            print("ok      the entry names " + what)
        else:
            failed += 1
            print("FAILED  the entry names " + what)
    print("check-bibtex: %s" % ("passed" if failed == 0 else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
