#!/usr/bin/python3
"""Every C file the book presents reads top-down (make check-order).

Usage: check_order.py CHAPTER.md...   (or --self-test)

A reader meets a file's skeleton (its `file=` block) and then its entry
point: the first of the chunks the skeleton names to be shown in the book
must hold a function the file exports (one not declared `static`), so that
the helpers come after the function that uses them, as in pbrt. This check
reads the chapters in their order, finds for each `.c` file the chunks its
skeleton names (but those an earlier chapter showed first, such as a line a
measurement's chapter adds to a table), and fails, naming the file and the chunk shown first, when
that chunk exports nothing, unless the file is one of EXEMPT, each with its
reason. Prints one line when every file reads top-down."""
import pathlib
import re
import sys

EXEMPT = {
}
BLOCK = re.compile(r"^```\{(.*)\}\s*$")
REFERENCE = re.compile(r"<<([^>]+)>>")
# a function definition at the left margin that is not static: its header,
# perhaps over several lines, then a line holding only "{"
EXPORTED = re.compile(r"^(?!static\b)(?!typedef\b)[A-Za-z_][\w \*]*\b\w+\([^;{}]*\)\s*\n\{",
                      re.M)


def blocks(name, text):
    """(chunk name, chapter, line, body) for each named block, in reading order."""
    found = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = BLOCK.match(lines[i])
        if not m:
            i += 1
            continue
        attrs = m.group(1)
        root = re.search(r"\bfile=(\S+)", attrs)
        named = re.search(r"(?:^|\s)#([^\s}]+)", attrs)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        chunk = root.group(1) if root else named.group(1) if named else None
        if chunk is not None:
            found.append((chunk, name, i + 1, "\n".join(lines[i + 1:j])))
        i = j + 1
    return found


def out_of_order(chapters):
    """(file, chapter, chunk shown first) for each C file whose first shown
    chunk exports nothing while another of its chunks does."""
    shown = []
    for name, text in chapters:
        shown += blocks(name, text)
    first_at, bodies = {}, {}
    for k, (chunk, chapter, line, body) in enumerate(shown):
        first_at.setdefault(chunk, k)
        bodies.setdefault(chunk, []).append(body)
    found = []
    for chunk, chapter, line, body in shown:
        if not chunk.endswith(".c") or first_at[chunk] != shown.index((chunk, chapter, line,
                                                                       body)):
            continue
        skeleton = "\n".join(bodies[chunk])
        # a chunk an earlier chapter showed (a table's line that chapter
        # adds) is not part of this file's presentation
        named = [r for r in REFERENCE.findall(skeleton)
                 if r in first_at and shown[first_at[r]][1] == chapter or
                 r in first_at and first_at[r] > first_at[chunk]]
        exports = [r for r in named if EXPORTED.search("\n".join(bodies[r]))]
        if not named or not exports or chunk in EXEMPT:
            continue
        first = min(named, key=lambda r: first_at[r])
        if first not in exports:
            found.append((chunk, chapter, first))
    return found


def self_test():
    skeleton = "```{.c file=code/x/a.c}\n<<helper>>\n\n<<entry>>\n```\n"
    helper = "```{.c #helper}\nstatic int twice(int x)\n{\n    return 2 * x;\n}\n```\n"
    entry = "```{.c #entry}\nint a_run(int x,\n          int y)\n{\n    return twice(x) + y;\n}\n```\n"
    problems = []
    def expect(what, got, want):
        if got != want:
            problems.append(f"{what}: got {got}, want {want}")
    expect("helper first", out_of_order([("a.md", skeleton + helper + entry)]),
           [("code/x/a.c", "a.md", "helper")])
    expect("entry first", out_of_order([("a.md", skeleton + entry + helper)]), [])
    expect("across chapters", out_of_order([("a.md", skeleton + entry), ("b.md", helper)]), [])
    earlier = "```{.c #helper}\nstatic int twice(int x);\n```\n"
    expect("a helper an earlier chapter showed", out_of_order(
        [("0.md", earlier), ("a.md", skeleton + entry + helper)]), [])
    expect("nothing exported", out_of_order([("a.md", skeleton.replace("<<entry>>", "") +
                                                       helper)]), [])
    for p in problems:
        print("check-order self-test: " + p, file=sys.stderr)
    return 1 if problems else 0


def main(args):
    if args == ["--self-test"]:
        return self_test()
    if self_test() != 0:
        return 1
    chapters = [(p, pathlib.Path(p).read_text(encoding="utf-8")) for p in args]
    found = out_of_order(chapters)
    if found:
        print("check-order: a file the book presents shows a helper before its entry point; "
              "move the chunk that exports its function right after the file's skeleton:",
              file=sys.stderr)
        for chunk, chapter, first in found:
            print(f"  {chapter}: {chunk} shows <<{first}>> first", file=sys.stderr)
        return 1
    print("check-order: every C file the book presents shows its entry point right after "
          f"its skeleton ({len(EXEMPT)} exempt{': ' if EXEMPT else ''}"
          f"{', '.join(sorted(EXEMPT))})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
