#!/usr/bin/python3
"""Every file of data/ and every column of its header is described in
data/README.md: a file by a bold `name.csv`, a column by its name in
backticks somewhere in that file's part of the README (from its bold name
to the next file's). Exits 1, naming what is missing, otherwise prints one
line. Run by `make test`."""
import csv
import pathlib
import re
import sys

DATA = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "data")
readme = (DATA / "README.md").read_text(encoding="utf-8")

# Where each file's description starts: its first bold mention.
starts = {m.group(1): m.start() for m in re.finditer(r"\*\*`([a-z_]+\.csv)`\*\*", readme)}
ordered = sorted(starts.values()) + [len(readme)]

missing = []
files = sorted(p for p in DATA.glob("*.csv"))
for path in files:
    if path.name not in starts:
        missing.append(f"{path.name}: not described")
        continue
    # Its part: to the next file whose description starts in a later
    # paragraph (files named together share one paragraph).
    begin = starts[path.name]
    paragraph_end = readme.find("\n\n", begin)
    paragraph_end = len(readme) if paragraph_end < 0 else paragraph_end
    end = next(o for o in ordered if o >= paragraph_end)
    part = readme[begin:end]
    with path.open(newline="", encoding="utf-8") as f:
        header = next(csv.reader(f), [])
    if header == ["key", "value"] and "`key,value`" in part:
        continue                               # the keys are the rows' business
    for column in header:
        if f"`{column}`" not in part:
            missing.append(f"{path.name}: column {column} not described")
for name in starts:
    if not (DATA / name).exists():
        missing.append(f"{name}: described but not in {DATA}/")

if missing:
    print("check-data-readme: data/README.md does not describe:", file=sys.stderr)
    for m in missing:
        print("  " + m, file=sys.stderr)
    sys.exit(1)
print(f"check-data-readme: {len(files)} files of {DATA}/ and all their columns are described")
