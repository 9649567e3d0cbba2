#!/usr/bin/python3
"""check_any_text.py - text no author wrote weaves into the PDF, whatever it holds.

    /usr/bin/python3 tests/check_any_text.py

A kept run's conditions and a machine's name reach the paper's tables and
values (paper/96-reproductions.md). One character the PDF's fonts lack (an
Omega, a CJK character, an emoji) once stopped paper.pdf ("Unicode
character not set up"), and a conditions line cut inside a character
stopped the weave's filter. This weaves a document with such a value and
such a table through paper/filters/values.lua and the paper's LaTeX
preamble, as the PDFs are woven, runs pdflatex on it, and checks that it
makes a PDF in which each character the fonts lack is shown as its code
point (U+4E2D) rather than stopping it, and that a character they have
(an e with an acute) is set as itself. Needs pandoc and pdflatex
(Debian's).
"""

import os
import re
import subprocess
import sys
import tempfile
import zlib

from checks import Checks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOSTILE = "Omega \u03a9, zhong \u4e2d, emoji \U0001F600, rlo \u202e, caf\u00e9"
DOC = """---
title: Any text
---

The processor: [machine.cpu]{.num}.

::: {.datatable #tbl:machines src="machines"}
Kept runs.
:::
"""


def pdf_text(path):
    """The text of the PDF's content streams, roughly: what is between ( )."""
    data = open(path, "rb").read()
    shown = []
    for m in re.finditer(rb"stream\r?\n(.*?)endstream", data, re.S):
        try:
            shown.append(zlib.decompress(m.group(1)).decode("latin-1"))
        except zlib.error:
            pass
    return "".join(re.findall(r"\(((?:[^()\\]|\\.)*)\)", "\n".join(shown)))


def main():
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="ipctax-any-text-") as tmp:
        os.makedirs(os.path.join(tmp, "tables"))
        with open(os.path.join(tmp, "values.csv"), "w", encoding="utf-8") as f:
            f.write('key,value\nmachine.cpu,"%s"\n' % HOSTILE)
        with open(os.path.join(tmp, "tables", "machines.csv"), "wb") as f:
            f.write(("Label,Conditions\nR1,\"%s\"\n" % HOSTILE).encode("utf-8"))
            # a line cut inside a character, as a 255-byte limit once cut it
            f.write(b"R2,\"cut \xe4\xb8\"\n")
        doc = os.path.join(tmp, "doc.md")
        with open(doc, "w") as f:
            f.write(DOC)
        env = dict(os.environ, IPCTAX_WOVEN=tmp)
        tex = os.path.join(tmp, "doc.tex")
        out = subprocess.run(["pandoc", doc, "--standalone", "--to", "latex", "-o", tex,
                              "-H", "paper/latex/preamble.tex", "-V", "graphics=true",
                              "--lua-filter", "paper/filters/values.lua"],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        c.check(out.returncode == 0, "the filter weaves hostile text and a cut character",
                out.stderr.strip()[-400:])
        if out.returncode != 0:
            return c.summary("check-any-text")
        latex = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                                "-output-directory", tmp, tex], cwd=ROOT,
                               capture_output=True, text=True)
        errors = [l for l in latex.stdout.splitlines() if l.startswith("!")]
        c.check(latex.returncode == 0, "pdflatex sets it", "; ".join(errors[:3]))
        if latex.returncode != 0:
            return c.summary("check-any-text")
        text = pdf_text(os.path.join(tmp, "doc.pdf"))
        for code in ("U+03A9", "U+4E2D", "U+1F600", "U+202E"):
            c.check(text.count(code) >= 2, "%s is shown as its code point, in the prose and "
                    "in the table" % code, "found %d times" % text.count(code))
        c.check("U+00E9" not in text, "a character the fonts have is set as itself")
    return c.summary("check-any-text")


if __name__ == "__main__":
    sys.exit(main())
