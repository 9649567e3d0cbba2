#!/usr/bin/python3
"""check_when.py - a sentence a run cannot fill is left out before it is filled.

    /usr/bin/python3 tests/check_when.py

An older kept run lacks the measurements added after it, and the paper
keeps the sentences that report them inside a .when on a "measured" flag
(paper/filters/values.lua). The filter must decide the .when first: a
placeholder inside a sentence such a flag leaves out asks for nothing,
while one inside a sentence that is kept, outside any .when, or left out
by any other choice (a verdict's) still stops the weave, naming the value;
and a choice of branches on one key with none for the run's value stops
it too. Once the placeholders were looked up first, and
a kept run older than the retouch probe could not be woven at all. This
weaves small documents through values.lua with a values.csv of its own.

And a .when span that opens with a space, `text.[ More]{.when ...}`,
loses it: pandoc drops a span's leading space as it reads, so a kept
sentence ran into the one before ("echo.The price"). The chapters are
scanned for such spans, outside code blocks; the space goes before the
bracket, or, where the span must not leave a space behind when it is
left out, is written `[\\ (` (a space pandoc keeps).
"""

import glob
import re

import os
import subprocess
import sys
import tempfile

from checks import Checks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FLAG = "mech.round.retouch.measured"
ABSENT = "mech.round.retouch.pages"      # a real family's key, absent from values.csv
PRESENT = "mech.round.rounds"
VERDICT = "claim.one_crossing.verdict"
PARTS = "roof.parts"                      # "measured or not measured"

# (what, document, whether it must weave, a word the woven text must hold or lack)
CASES = [
    ("a span left out may ask for a value the run lacks",
     "Rounds: [%s]{.num}. [Pages: [%s]{.num}.]{.when key=%s is=yes}[No probe.]{.when key=%s is=no}"
     % (PRESENT, ABSENT, FLAG, FLAG), True, ("No probe", "Pages")),
    ("a div left out may ask for a value the run lacks",
     "::: {.when key=%s not=no}\nPages: [%s]{.num}.\n:::\n\nKept." % (FLAG, ABSENT), True,
     ("Kept", "Pages")),
    ("a nested choice inside a span left out asks for nothing",
     "[Outer [inner [%s]{.num}]{.when key=%s is=no}]{.when key=%s is=yes} End."
     % (ABSENT, FLAG, FLAG), True, ("End", "Outer")),
    ("a branch left out by a verdict still needs its values (a misspelt key shows at once)",
     "[Pages: [%s]{.num}.]{.when key=%s is=holds} End." % (ABSENT, VERDICT), False, (ABSENT, None)),
    ("a measured flag inside a verdict's branch left out still hides what it guards",
     "[Rounds [%s]{.num}[ and pages [%s]{.num}]{.when key=%s is=yes}.]{.when key=%s is=holds} End."
     % (PRESENT, ABSENT, FLAG, VERDICT), True, ("End", "Rounds")),
    ("a choice whose values say measured is a measured flag too",
     "[Pages: [%s]{.num}.]{.when key=%s is=measured} End." % (ABSENT, PARTS), True,
     ("End", "Pages")),
    ("the choices inside a kept span are made too",
     "[Rounds [five]{.when key=%s is=5}[other]{.when key=%s not=5}.]{.when key=%s is=no} End."
     % (PRESENT, PRESENT, FLAG), True, ("Rounds five.", "other")),
    ("the choices inside a kept div are made too",
     "::: {.when key=%s is=no}\nRounds [five]{.when key=%s is=5}[other]{.when key=%s not=5}.\n:::"
     % (FLAG, PRESENT, PRESENT), True, ("Rounds five.", "other")),
    ("a choice with no branch for the run's value stops the weave, naming it",
     "It [holds]{.when key=%s is=holds}[cannot be judged]{.when key=%s is=undecided}."
     % (VERDICT, VERDICT), False, (VERDICT, None)),
    ("a choice with a branch for the run's value weaves it",
     "It [holds]{.when key=%s is=holds}[fails]{.when key=%s is=fails}." % (VERDICT, VERDICT),
     True, ("It fails.", "holds")),
    ("a span kept still needs its values", "[Pages: [%s]{.num}.]{.when key=%s is=no}"
     % (ABSENT, FLAG), False, (ABSENT, None)),
    ("a value outside any choice still needs to be there", "Pages: [%s]{.num}." % ABSENT,
     False, (ABSENT, None)),
]


def weave(tmp, text):
    doc = os.path.join(tmp, "doc.md")
    with open(doc, "w") as f:
        f.write(text + "\n")
    env = dict(os.environ, IPCTAX_WOVEN=tmp)
    return subprocess.run(["pandoc", doc, "--to", "plain", "--lua-filter",
                           "paper/filters/values.lua"], cwd=ROOT, env=env,
                          capture_output=True, text=True)


def spans_that_lose_their_space(path):
    """(line, text) of each .when span in path whose text opens with a space."""
    text = open(path, encoding="utf-8").read()
    code, found, at = False, [], 0
    for number, line in enumerate(text.split("\n"), 1):
        if line.startswith("```"):
            code = not code
        for m in () if code else re.finditer(r"\[ (?=\S)", line):
            depth, j = 0, at + m.start()
            while j < len(text):
                depth += {"[": 1, "]": -1}.get(text[j], 0)
                if depth == 0:
                    break
                j += 1
            if text.startswith("{.when", j + 1):
                found.append((number, line.strip()[:60]))
        at += len(line) + 1
    return found


def check_sources(c):
    with tempfile.TemporaryDirectory(prefix="ipctax-when-src-") as tmp:
        bad = os.path.join(tmp, "bad.md")
        with open(bad, "w") as f:
            f.write("```c\nint a[ 1]{.when};\n```\nEcho.[ More.]{.when key=k is=yes}\n")
        c.check([n for n, _ in spans_that_lose_their_space(bad)] == [4],
                "a span that opens with a space is found, and code is not scanned")
    for path in sorted(glob.glob(os.path.join(ROOT, "paper", "*.md"))) + \
            [os.path.join(ROOT, "paper", "metadata.yaml")]:
        for number, line in spans_that_lose_their_space(path):
            c.check(False, "%s:%d: a .when span opens with a space pandoc drops"
                    % (os.path.relpath(path, ROOT), number), line)


def main():
    c = Checks()
    check_sources(c)
    with tempfile.TemporaryDirectory(prefix="ipctax-when-") as tmp:
        with open(os.path.join(tmp, "values.csv"), "w") as f:
            f.write("key,value\n%s,no\n%s,5\n%s,fails\n%s,not measured\n"
                    % (FLAG, PRESENT, VERDICT, PARTS))
        for what, text, weaves, (word, lacks) in CASES:
            out = weave(tmp, text)
            if weaves:
                c.check(out.returncode == 0 and word in out.stdout and
                        (lacks is None or lacks not in out.stdout), what,
                        (out.stderr.strip() or out.stdout.strip())[-300:])
            else:
                c.check(out.returncode != 0 and word in out.stderr, what,
                        "it wove: " + out.stdout.strip()[-200:] if out.returncode == 0
                        else out.stderr.strip()[-300:])
    return c.summary("check-when")


if __name__ == "__main__":
    sys.exit(main())
