#!/usr/bin/python3
"""data/README.md, the data dictionary, against the schema of data/.

Usage: check_data_readme.py DATA DATAPACKAGE_JSON. The package is what
ipctax-datapackage writes from the schema (code/schema/). Every file the
schema names must be described in DATA/README.md by a bold `name.csv`, and
each of its columns (for a key-value file, `key,value` and each key the
schema declares) by its name in backticks somewhere in that file's part of
the README (from its bold name to the next file's); every file of DATA/ and
every file the README describes must be one the schema names; and a
column's unit must be the one its name says (`_ns` nanoseconds, `_s`
seconds), as the README promises. Exits 1, naming what is wrong, otherwise
prints one line. Run by `make test`."""
import json
import pathlib
import re
import sys

DATA = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "data")
PACKAGE = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else "build/datapackage.json")
readme = (DATA / "README.md").read_text(encoding="utf-8")
package = json.loads(PACKAGE.read_text(encoding="utf-8"))
resources = {r["path"]: r for r in package["resources"]}

# Where each file's description starts: its first bold mention.
starts = {m.group(1): m.start() for m in re.finditer(r"\*\*`([a-z_]+\.csv)`\*\*", readme)}
ordered = sorted(starts.values()) + [len(readme)]


def part_of(name):
    """The README's part about a file: to the next file whose description
    starts in a later paragraph (files named together share one paragraph)."""
    begin = starts[name]
    paragraph_end = readme.find("\n\n", begin)
    paragraph_end = len(readme) if paragraph_end < 0 else paragraph_end
    end = next(o for o in ordered if o >= paragraph_end)
    return readme[begin:end]


problems = []
for name, r in sorted(resources.items()):
    if name not in starts:
        problems.append(f"{name}: in the schema, not described in {DATA}/README.md")
        continue
    part = part_of(name)
    fields = [f["name"] for f in r["schema"]["fields"]]
    if "keys" in r:
        if "`key,value`" not in part:
            problems.append(f"{name}: a key-value file, not described as `key,value`")
        fields = [k["name"] for k in r["keys"]]
    for column in fields:
        if f"`{column}`" not in part:
            problems.append(f"{name}: {'key' if 'keys' in r else 'column'} {column} not described")
    for f in r["schema"]["fields"] + r.get("keys", []):
        for suffix, unit in (("_ns", "ns"), ("_s", "s")):
            if f["name"].endswith(suffix) and f.get("unit") != unit:
                problems.append(f"{name}: {f['name']} has unit {f.get('unit')!r}, not {unit}")
for name in sorted(starts):
    if name not in resources:
        problems.append(f"{name}: described, but the schema names no such file")
for path in sorted(DATA.glob("*.csv")):
    if path.name not in resources:
        problems.append(f"{path.name}: in {DATA}/, but the schema names no such file")

if problems:
    print(f"check-data-readme: {DATA}/README.md and the schema ({PACKAGE}) disagree:",
          file=sys.stderr)
    for p in problems:
        print("  " + p, file=sys.stderr)
    sys.exit(1)
print(f"check-data-readme: the {len(resources)} files of the schema and all their columns "
      f"are described in {DATA}/README.md, and {DATA}/ holds no other")
