#!/usr/bin/python3
"""check_provenance.py - the weave refuses numbers whose provenance is wrong.

    /usr/bin/python3 tests/check_provenance.py WOVEN

The table of provenance says, once per family of keys, where the paper's
numbers come from (values.lua, chunks.lua). This weaves a two-line document
through those filters, with the values in WOVEN (build/woven), against
tables of provenance written for the test: a right one must weave, and the
number must carry its key and its estimate; a key without a family, a file
data/ lacks, a column its file lacks and a chunk no block defines must each
stop the weave with a message that names it.

The table is gathered by the tangler (IPCTAX_TANGLE, build/tangle) from
paper/provenance.csv and the chapters' provenance blocks: a family a
chapter's block declares must reach the table and weave, and a row of the
wrong width must stop the tangler, naming the chapter and the line, with
nothing printed. The page leaves a provenance block out, with the sentence
that says what it is (both in a Div of class provenance); the book sets
both.

It also holds the contract of .when: a key's family declares the values it
may take (its unit, "resolved, budget or max_rounds"; a family of numbers
compares whole numbers), and a .when whose value, or one of whose is= or
not= alternatives, lies outside that set stops the weave with the key, the
value and the set, instead of dropping its sentence. And the digits are the
summary's: a [key]{.num .sig} (the filter's own rounding, once) stops the
weave. Needs pandoc (Debian's).
"""

import os
import subprocess
import sys
import tempfile

from checks import Checks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = """The run had [run.bars]{.num} bars; [call.batch_unix.share_pct]{.num .ci}%.

```{.c #summarize-the-run}
int the_run;
```
"""
HEADER = "key,unit,estimator,n,from,chunk\n"
RIGHT = (HEADER + "**.n,values,how many,,,summarize-the-run\n"
         "run.*,bars,recorded,,run.csv: key value,summarize-the-run\n"
         "call.*.share_pct,%,median,rounds,calls.csv: architecture rtt_ns,summarize-the-run\n")
CASES = [
    ("a key without a family", RIGHT.replace("run.*,", "runs.*,"), "run.bars (no family"),
    ("a file data/ lacks", RIGHT.replace("run.csv: key", "runs.csv: key"), "runs.csv does not exist"),
    ("a column its file lacks", RIGHT.replace("architecture rtt_ns", "architecture rtt_us"),
     "has no column rtt_us"),
    ("a chunk no block defines", RIGHT.replace("rounds,calls.csv: architecture rtt_ns,summarize-the-run",
                                               "rounds,calls.csv: architecture rtt_ns,no-such-chunk"),
     "<<no-such-chunk>>"),
]


# .when: the stop rule's endings (a family of words), the kept runs' count
# (a family of numbers); each case gives the values, the sentence and what
# the weave must do: keep the sentence, drop it, or stop naming the words.
WHEN_TABLE = (HEADER + "**.n,values,how many,,,summarize-the-run\n"
              "run.stop_reason,\"resolved, budget or max_rounds\",how the rounds ended,,"
              "run.csv: key value,summarize-the-run\n"
              "run.*,bars,recorded,,run.csv: key value,summarize-the-run\n"
              "across.*,kept runs,counted,,,summarize-the-run\n")
WHEN_DOC = """The run had [run.bars]{.num} bars.

[It ended on its budget.]{.when key=%s %s}

```{.c #summarize-the-run}
int the_run;
```
"""
WHEN_CASES = [
    ("a value in its set keeps its sentence", "run.stop_reason", "budget", "is=budget",
     "kept", None),
    ("a value in its set drops another's", "run.stop_reason", "resolved", "is=budget",
     "dropped", None),
    ("a value outside its set", "run.stop_reason", "timeout", "is=budget", "stops",
     ['run.stop_reason', '"timeout"', "budget, max_rounds, resolved"]),
    ("an alternative outside the set", "run.stop_reason", "budget", 'is="budget|resolvd"',
     "stops", ['run.stop_reason', '"resolvd"', "budget, max_rounds, resolved"]),
    ("a count compared with a count", "across.count", "3", "not=0", "kept", None),
    ("a count that is a word", "across.count", "some", "not=0", "stops",
     ["across.count", '"some"', "not a whole number"]),
    ("a count compared with a word", "across.count", "3", "not=none", "stops",
     ["across.count", '"none"', "not a whole number"]),
]


def weave(woven, table, tmp, doc_text=DOC, values_text=None, to="html"):
    doc, prov = os.path.join(tmp, "doc.md"), os.path.join(tmp, "provenance.csv")
    with open(doc, "w") as f:
        f.write(doc_text)
    with open(prov, "w") as f:
        f.write(table)
    env = dict(os.environ, IPCTAX_WOVEN=tmp, IPCTAX_PROVENANCE=prov)
    values = os.path.join(woven, "values.csv")
    with open(values) as src, open(os.path.join(tmp, "values.csv"), "w") as dst:
        dst.write(src.read() if values_text is None else values_text)
    return subprocess.run(["pandoc", doc, "--to", to, "--lua-filter", "paper/filters/values.lua",
                           "--lua-filter", "paper/filters/chunks.lua"],
                          cwd=ROOT, env=env, capture_output=True, text=True)


TANGLE = os.path.abspath(os.environ.get("IPCTAX_TANGLE")
                         or os.path.join(ROOT, "build", "tangle"))
# The generic rows, and a chapter that declares the family of call.*.share_pct
BASE = (HEADER + "**.n,values,how many,,,summarize-the-run\n"
        "run.*,bars,recorded,,run.csv: key value,summarize-the-run\n")
CHAPTER = """# Calls

::: provenance
The families of values this summarizer publishes are these rows:

```{.provenance}
call.*.share_pct,%,"median, per unit",rounds,calls.csv: architecture rtt_ns,summarize-the-run
```
:::
"""
SENTENCE = "The families of values this summarizer publishes are these rows:"
BROKEN = CHAPTER.replace("rtt_ns,summarize", "rtt_ns summarize")     # a field short


def gather(tmp, chapter):
    """The tangler's table from BASE and one chapter: its exit, output, errors."""
    base, path = os.path.join(tmp, "base.csv"), os.path.join(tmp, "chapter.md")
    with open(base, "w") as f:
        f.write(BASE)
    with open(path, "w") as f:
        f.write(chapter)
    return subprocess.run([TANGLE, "--provenance", "base.csv", "chapter.md"], cwd=tmp,
                          capture_output=True, text=True)


def check_gathering(c, woven, tmp):
    out = gather(tmp, CHAPTER)
    c.check(out.returncode == 0 and out.stdout.startswith(BASE)
            and out.stdout.endswith("rtt_ns,summarize-the-run\n"),
            "the tangler gathers the table: its rows, then the chapter's block",
            (out.stderr or out.stdout).strip()[-300:])
    woven_out = weave(woven, out.stdout, tmp)
    c.check(woven_out.returncode == 0
            and 'data-k="call.batch_unix.share_pct"' in woven_out.stdout,
            "a family declared in a chapter's block weaves",
            woven_out.stderr.strip()[-300:])
    out = gather(tmp, BROKEN)
    c.check(out.returncode == 1 and "chapter.md:7:" in out.stderr
            and "has 5 fields where the header of base.csv has 6" in out.stderr
            and out.stdout == "",
            "a row of the wrong width stops the tangler, naming the chapter and line",
            "exit %d: %s" % (out.returncode, out.stderr.strip()[-300:]))
    doc = DOC + "\n" + CHAPTER[CHAPTER.index("::: provenance"):]
    html = weave(woven, RIGHT, tmp, doc)
    c.check(html.returncode == 0 and "median, per unit" not in html.stdout
            and SENTENCE not in html.stdout and 'data-k="run.bars"' in html.stdout,
            "the page leaves a provenance block out, with its sentence",
            html.stderr.strip()[-300:])
    latex = weave(woven, RIGHT, tmp, doc, to="latex")
    c.check(latex.returncode == 0 and "\\begin{ProvenanceRows}" in latex.stdout
            and "median, per unit" in latex.stdout.replace("\\ ", " ")
            and SENTENCE in latex.stdout,
            "the book sets a provenance block, a row to a paragraph, after its sentence",
            latex.stderr.strip()[-300:])


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    woven = os.path.abspath(argv[1])
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="ipctax-provenance-") as tmp:
        out = weave(woven, RIGHT, tmp)
        c.check(out.returncode == 0 and 'data-k="run.bars"' in out.stdout
                and 'data-k="call.batch_unix.share_pct"' in out.stdout and "data-e=" in out.stdout
                and 'id="provenance"' in out.stdout,
                "a right table weaves: the numbers carry their keys and estimate, the page its table",
                out.stderr.strip()[-300:])
        for what, table, message in CASES:
            out = weave(woven, table, tmp)
            c.check(out.returncode != 0 and message in out.stderr,
                    "%s stops the weave, naming it (%s)" % (what, message),
                    "exit %d: %s" % (out.returncode, out.stderr.strip()[-300:]))
        for what, key, value, test, expected, names in WHEN_CASES:
            values = "key,value\nrun.bars,150000\n%s,%s\n" % (key, value)
            out = weave(woven, WHEN_TABLE, tmp, WHEN_DOC % (key, test), values)
            kept = "It ended on its budget." in out.stdout
            if expected == "stops":
                c.check(out.returncode != 0 and all(n in out.stderr for n in names),
                        "%s stops the weave, naming %s" % (what, ", ".join(names)),
                        "exit %d: %s" % (out.returncode, out.stderr.strip()[-300:]))
            else:
                c.check(out.returncode == 0 and kept == (expected == "kept"),
                        "%s: the sentence is %s" % (what, expected),
                        "exit %d, kept %s: %s" % (out.returncode, kept, out.stderr.strip()[-300:]))
        out = weave(woven, RIGHT, tmp, DOC.replace("[run.bars]{.num}", "[run.bars]{.num .sig}"))
        c.check(out.returncode != 0 and "run.bars" in out.stderr and "decides every digit" in out.stderr,
                "a .sig (digits decided again in the weave) stops it, naming the key",
                "exit %d: %s" % (out.returncode, out.stderr.strip()[-300:]))
        check_gathering(c, woven, tmp)
    return c.summary("check-provenance")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
