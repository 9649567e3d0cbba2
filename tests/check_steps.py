#!/usr/bin/python3
"""Every function the book shows is short (make check-steps).

Usage: check_steps.py CHAPTER.md...   (or --self-test)

A function over MOST_LINES lines is told as named steps inside its body,
as serve_frames is (paper/55-engine.md): its chunk keeps its declarations
and a line `<<step>>` per step, and each step is a chunk of its own with
its prose. This check reads the C code blocks of the chapters, finds each
function's body as the book shows it (a reference to a step counts as one
line), and fails, naming the chapter, the line and the function, when a
body is longer than MOST_LINES, unless the function is one of EXEMPT,
each with its reason. Prints one line when every body is short."""
import pathlib
import re
import sys

MOST_LINES = 40
EXEMPT = {
    # one fprintf whose conversions line up with the arguments after the text
    "engine_usage": "its usage text is one message, kept whole",
}
HEADER = re.compile(r"^[A-Za-z_][\w \*]*?\b(\w+)\(")


def long_bodies(name, text):
    """(chapter, line, function, body lines) for each body over MOST_LINES."""
    found = []
    lines = text.splitlines()
    in_c = False
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            in_c = not in_c and (".c " in line + " " or ".c}" in line)
            i += 1
            continue
        if in_c and line == "{":
            k = i - 1
            while k >= 0 and not HEADER.match(lines[k]) and not lines[k].startswith("```"):
                k -= 1
            m = HEADER.match(lines[k]) if k >= 0 else None
            j = i + 1
            while j < len(lines) and lines[j] != "}" and not lines[j].startswith("```"):
                j += 1
            body = j - i - 1
            if m and body > MOST_LINES and m.group(1) not in EXEMPT:
                found.append((name, k + 1, m.group(1), body))
            i = j
        i += 1
    return found


def self_test():
    short = "```{.c #a}\nstatic int f(void)\n{\n" + "    x();\n" * 40 + "}\n```\n"
    long_ = "```{.c #b}\nstatic int g(int a,\n             int b)\n{\n" + "    x();\n" * 41 + "}\n```\n"
    stepped = "```{.c #c}\nint h(void)\n{\n    <<one>>\n    <<two>>\n}\n```\n"
    prose = "A paragraph, then a block of another language:\n```{.python #p}\ndef f():\n{\n" + \
            "x\n" * 50 + "}\n```\n"
    exempt = "```{.c #d}\nvoid engine_usage(FILE *f)\n{\n" + "    y();\n" * 45 + "}\n```\n"
    problems = []
    def expect(what, got, want):
        if got != want:
            problems.append(f"{what}: got {got}, want {want}")
    expect("a body of 40 lines", long_bodies("a.md", short), [])
    expect("a body of 41 lines", long_bodies("b.md", long_), [("b.md", 2, "g", 41)])
    expect("a body told as steps", long_bodies("c.md", stepped), [])
    expect("a block that is not C", long_bodies("p.md", prose), [])
    expect("an exempt function", long_bodies("d.md", exempt), [])
    for p in problems:
        print("check-steps self-test: " + p, file=sys.stderr)
    return 1 if problems else 0


def main(args):
    if args == ["--self-test"]:
        return self_test()
    found = []
    for path in args:
        found += long_bodies(path, pathlib.Path(path).read_text(encoding="utf-8"))
    if found:
        print(f"check-steps: a function the book shows is over {MOST_LINES} lines; tell it "
              "as named steps inside its body (as serve_frames, paper/55-engine.md):",
              file=sys.stderr)
        for chapter, line, function, n in found:
            print(f"  {chapter}:{line}: {function}, {n} lines", file=sys.stderr)
        return 1
    print(f"check-steps: every function body the book shows is at most {MOST_LINES} lines "
          f"({len(EXEMPT)} exempt: {', '.join(sorted(EXEMPT))})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
