#!/usr/bin/python3
"""Validates CITATION.cff against the CFF 1.2.0 JSON Schema, offline.

usage: check_cff.py CITATION.cff SCHEMA.json [MACHINE.csv]

Uses Debian's python3-ruamel.yaml and python3-jsonschema (so it must run
under /usr/bin/python3). YAML dates are turned into ISO strings first,
because the schema expects strings where YAML sees dates.

Beyond the schema, what the paper relies on:
  - a preferred-citation and the original study in references;
  - both licences: the top level names MIT (the code) and CC-BY-4.0 (the
    text, figures and data), and the preferred citation, the paper, is
    CC-BY-4.0;
  - the dates come after the data: date-released, and the preferred
    citation's year and month, are not before the published run's date
    (machine.csv's date; by default the one committed at git HEAD, which
    is the published run even after `make paper` replaced data/);
  - the addresses (url, repository-code), when given, are absolute http(s)
    addresses.
"""
import datetime
import json
import re
import subprocess
import sys

import jsonschema
from ruamel.yaml import YAML


def iso_dates(node):
    if isinstance(node, dict):
        return {k: iso_dates(v) for k, v in node.items()}
    if isinstance(node, list):
        return [iso_dates(v) for v in node]
    if isinstance(node, (datetime.date, datetime.datetime)):
        return node.isoformat()
    return node


def published_date(path):
    """The published run's date (YYYY-MM-DD) from machine.csv: the file given,
    or data/machine.csv as committed at git HEAD, or as it is."""
    text = None
    if path is None:
        try:
            text = subprocess.run(["git", "show", "HEAD:data/machine.csv"], capture_output=True,
                                  text=True, check=True).stdout
        except (OSError, subprocess.CalledProcessError):
            path = "data/machine.csv"
    if text is None:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    m = re.search(r"^date,(\d{4}-\d{2}-\d{2})", text, re.M)
    return m.group(1) if m else None


def licences(value):
    return value if isinstance(value, list) else [value] if value else []


def extra_checks(path, data, machine):
    errors = []
    if "preferred-citation" not in data or not data.get("references"):
        errors.append("needs a preferred-citation and the original study in references")
        return errors
    pc = data["preferred-citation"]
    top = licences(data.get("license"))
    if "MIT" not in top or "CC-BY-4.0" not in top:
        errors.append("license must name both MIT (the code) and CC-BY-4.0 (the text, figures "
                      "and data), not %s" % top)
    if licences(pc.get("license")) != ["CC-BY-4.0"]:
        errors.append("preferred-citation: the paper's license must be CC-BY-4.0")
    date = published_date(machine)
    released = str(data.get("date-released", ""))
    if date is None:
        errors.append("no date in the published run's machine.csv")
    else:
        if released < date:
            errors.append("date-released %s is before the published run (%s)" % (released, date))
        cited = "%04d-%02d" % (int(pc.get("year", 0)), int(pc.get("month", 1)))
        if cited < date[:7]:
            errors.append("preferred-citation's year and month %s are before the published run (%s)"
                          % (cited, date))
    for field in ("url", "repository-code"):
        for where, entry in (("", data), ("preferred-citation: ", pc)):
            if field in entry and not re.match(r"^https?://\S+$", str(entry[field])):
                errors.append("%s%s must be an absolute http(s) address" % (where, field))
    return errors


def main():
    cff_path, schema_path = sys.argv[1], sys.argv[2]
    machine = sys.argv[3] if len(sys.argv) > 3 else None
    with open(cff_path) as f:
        data = iso_dates(YAML(typ="safe").load(f))
    with open(schema_path) as f:
        schema = json.load(f)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
    for e in errors:
        where = "/".join(str(p) for p in e.path) or "(top level)"
        print(f"{cff_path}: {where}: {e.message}")
    if errors:
        return 1
    extra = extra_checks(cff_path, data, machine)
    for e in extra:
        print(f"{cff_path}: {e}")
    if extra:
        return 1
    print(f"{cff_path}: valid CFF {data['cff-version']}, both licences, dated after the data")
    return 0


if __name__ == "__main__":
    sys.exit(main())
