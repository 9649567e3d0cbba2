#!/usr/bin/python3
"""check_provenance.py - the weave refuses numbers whose provenance is wrong.

    /usr/bin/python3 tests/check_provenance.py WOVEN

paper/provenance.csv says, once per family of keys, where the paper's
numbers come from (values.lua, chunks.lua). This weaves a two-line document
through those filters, with the values in WOVEN (build/woven), against
tables of provenance written for the test: a right one must weave, and the
number must carry its key and its estimate; a key without a family, a file
data/ lacks, a column its file lacks and a chunk no block defines must each
stop the weave with a message that names it. Needs pandoc (Debian's).
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


def weave(woven, table, tmp):
    doc, prov = os.path.join(tmp, "doc.md"), os.path.join(tmp, "provenance.csv")
    with open(doc, "w") as f:
        f.write(DOC)
    with open(prov, "w") as f:
        f.write(table)
    env = dict(os.environ, IPCTAX_WOVEN=tmp, IPCTAX_PROVENANCE=prov)
    values = os.path.join(woven, "values.csv")
    with open(values) as src, open(os.path.join(tmp, "values.csv"), "w") as dst:
        dst.write(src.read())
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
    return c.summary("check-provenance")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
