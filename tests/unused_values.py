#!/usr/bin/python3
"""unused_values.py - what the summary computes and the paper does not read.

    /usr/bin/python3 tests/unused_values.py WOVEN PROVENANCE

WOVEN holds the last weave's values.csv, tables/ and used-keys.txt (every
key and table the weave read: values.lua writes it). A value the paper does
not read is still published, in the values.csv beside the page, when a
family of PROVENANCE (build/woven/provenance.csv, the table make gathers
from paper/provenance.csv and the chapters' provenance blocks) describes
it: its unit, its estimator, where it comes from. This lists, with
counts, the values read, the values published unread, and those neither
read nor described, which are computed for nobody (exit 1: remove them,
or give them a family); then the tables no chapter shows.
"""

import csv
import os
import re
import sys

PARTS = (".low", ".high", ".n", ".unit", ".coverage_pct", ".level_pct")


def pattern(glob):
    """A family's key pattern: * one dotted part, ** any run of them."""
    out = re.escape(glob).replace(r"\*\*", "\0").replace(r"\*", "[^.]+").replace("\0", ".+")
    return re.compile("^" + out + "$")


def whole_key(key):
    """X for an estimate's part X.low, X.high, ...; else the key."""
    for part in PARTS:
        if key.endswith(part):
            return key[: -len(part)]
    return key


def main(woven, provenance):
    with open(os.path.join(woven, "values.csv"), newline="") as f:
        keys = [row[0] for row in list(csv.reader(f))[1:]]
    with open(os.path.join(woven, "used-keys.txt")) as f:
        used = set(f.read().split())
    with open(provenance, newline="") as f:
        families = [pattern(row["key"]) for row in csv.DictReader(f)]
    unread = [k for k in keys if k not in used]
    described = [k for k in unread if any(p.match(whole_key(k)) for p in families)]
    nobody = [k for k in unread if k not in set(described)]
    tables = sorted("tables/" + t for t in os.listdir(os.path.join(woven, "tables"))
                    if t.endswith(".csv"))
    unshown = [t for t in tables if t not in used]
    print(f"unused-values: {len(keys)} values; {len(keys) - len(unread)} read by the paper, "
          f"{len(described)} published unread (a family of {provenance} describes them), "
          f"{len(nobody)} neither")
    for k in nobody:
        print(f"  computed for nobody: {k}")
    print(f"unused-values: {len(tables)} tables; {len(unshown)} no chapter shows"
          + (": " + ", ".join(unshown) if unshown else ""))
    return 1 if nobody else 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
