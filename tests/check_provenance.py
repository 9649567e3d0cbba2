#!/usr/bin/python3
"""check_provenance.py - the weave refuses numbers whose provenance is wrong.

    /usr/bin/python3 tests/check_provenance.py WOVEN

paper/provenance.csv says, once per family of keys, where the paper's
numbers come from (values.lua, chunks.lua). This weaves a two-line document
through those filters, with the values in WOVEN (build/woven), against
tables of provenance written for the test: a right one must weave, and the
number must carry its key and its estimate; a key without a family, a file
data/ lacks, a column its file lacks and a chunk no block defines must each
stop the weave with a message that names it.

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


def weave(woven, table, tmp, doc_text=DOC, values_text=None):
    doc, prov = os.path.join(tmp, "doc.md"), os.path.join(tmp, "provenance.csv")
    with open(doc, "w") as f:
        f.write(doc_text)
    with open(prov, "w") as f:
        f.write(table)
    env = dict(os.environ, IPCTAX_WOVEN=tmp, IPCTAX_PROVENANCE=prov)
    values = os.path.join(woven, "values.csv")
    with open(values) as src, open(os.path.join(tmp, "values.csv"), "w") as dst:
        dst.write(src.read() if values_text is None else values_text)
    return subprocess.run(["pandoc", doc, "--to", "html", "--lua-filter", "paper/filters/values.lua",
                           "--lua-filter", "paper/filters/chunks.lua"],
                          cwd=ROOT, env=env, capture_output=True, text=True)


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
    return c.summary("check-provenance")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
