#!/usr/bin/python3
"""The layers of code/ as the build enforces them (make check-layers).

Usage: check_layers.py BUILD UNIT:USES... where UNIT is a layer (a folder
of code/, built into BUILD/libUNIT.a) or a source file (a tool's or a
test's main), and USES the comma-separated layers it may use, directly or
not. Fails, naming the file and the line, when a file includes a header of
a layer its unit may not use, and, naming both libraries, when a library
has an undefined symbol that a library it may not use defines (read with
nm). Prints one line when every unit keeps to its layers."""
import pathlib
import re
import subprocess
import sys

build = pathlib.Path(sys.argv[1])
uses = {}
for arg in sys.argv[2:]:
    unit, _, allowed = arg.partition(":")
    uses[unit] = set(filter(None, allowed.split(",")))
layers = [u for u in uses if "/" not in u]
problems = []

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"', re.M)


def check_includes(path, unit):
    allowed = uses[unit] | ({unit} if unit in layers else set())
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = INCLUDE.match(line)
        if m and m.group(1) in layers and m.group(1) not in allowed:
            problems.append(f"{path}:{number}: includes {m.group(1)}/, which {unit} may not "
                            f"use (it may use {', '.join(sorted(uses[unit])) or 'no layer'})")


for layer in layers:
    for path in sorted(p for pattern in ("*.[ch]", "*.def")
                       for p in pathlib.Path("code", layer).glob(pattern)):
        check_includes(path, layer)
for unit in uses:
    if "/" in unit:
        check_includes(pathlib.Path(unit), unit)


def symbols(lib, *flags):
    out = subprocess.run(["nm", "-g", *flags, str(lib)], check=True, capture_output=True,
                         text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line and not line.endswith(":")}


libs = {layer: build / f"lib{layer}.a" for layer in layers}
defined = {layer: symbols(lib, "--defined-only") for layer, lib in libs.items()}
for layer, lib in libs.items():
    for symbol in sorted(symbols(lib, "--undefined-only") - defined[layer]):
        owners = [other for other in layers if symbol in defined[other] and other != layer]
        for owner in owners:
            if owner not in uses[layer]:
                problems.append(f"{lib}: needs {symbol}, which only {owner} defines, and "
                                f"{layer} may not use {owner}")

if problems:
    print("check-layers: a unit reaches a layer it may not use:", file=sys.stderr)
    for p in problems:
        print("  " + p, file=sys.stderr)
    sys.exit(1)
print(f"check-layers: {len(layers)} layers ({', '.join(layers)}) and {len(uses) - len(layers)} "
      "programs include and link only the layers they may use")
