#!/usr/bin/python3
"""Validates CITATION.cff against the CFF 1.2.0 JSON Schema, offline.

usage: check_cff.py CITATION.cff SCHEMA.json

Uses Debian's python3-ruamel.yaml and python3-jsonschema (so it must run
under /usr/bin/python3). YAML dates are turned into ISO strings first,
because the schema expects strings where YAML sees dates.
"""
import datetime
import json
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


def main():
    cff_path, schema_path = sys.argv[1], sys.argv[2]
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
    if "preferred-citation" not in data or not data.get("references"):
        print(f"{cff_path}: needs a preferred-citation and the original study in references")
        return 1
    print(f"{cff_path}: valid CFF {data['cff-version']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
