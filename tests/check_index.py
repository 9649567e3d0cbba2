#!/usr/bin/python3
"""check_index.py - the book's index of identifiers says where each is made and used.

    /usr/bin/python3 tests/check_index.py

paper/filters/index.lua lists every function and type the headers of code/
export, the chunk that defines it and the chunks that use it, and
chunks.lua turns each into a link to the piece by its label. This weaves a
small book, to HTML and to LaTeX, whose two headers export a function, a
static inline one, a struct, a typedef and names declared with a function
type, and whose chunks define and use them: each entry must link its
definition and only the pieces that use it; and a header whose function no
chunk defines must stop the weave, naming the function and its header.
Needs pandoc (Debian's).
"""

import os
import re
import subprocess
import sys
import tempfile

from checks import Checks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HEADER_A = """/* a.h - a test's header. */
#ifndef A_H
#define A_H
#include <stddef.h>

struct gauge {
    double level;
};

/* The level, doubled. */
double gauge_twice(const struct gauge *g);
typedef void step(struct gauge *g);
step step_up, step_down;
static inline int gauge_empty(const struct gauge *g) { return g->level == 0; }
enum { UNINDEXED = 3 };
#endif
"""
HEADER_B = """/* b.h */
const char *gauge_name(int which) __attribute__((const));
"""
BOOK = """# A book

```{.c file=code/a/a.h}
struct gauge {
    double level;
};
double gauge_twice(const struct gauge *g);
typedef void step(struct gauge *g);
step step_up, step_down;
static inline int gauge_empty(const struct gauge *g) { return g->level == 0; }
```

The gauge doubled.

```{.c #double-it}
double gauge_twice(const struct gauge *g)
{
    return 2 * g->level;
}
```

```{.c #steps}
void step_up(struct gauge *g)
{
    g->level = gauge_twice(g);
}

void step_down(struct gauge *g)
{
    g->level = 0;
}
```

```{.c #names}
const char *gauge_name(int which)
{
    return which ? "up" : "down";
}
```

A paragraph that says gauge_twice is not code.
"""


def weave(tmp, book, headers, to):
    doc = os.path.join(tmp, "book.md")
    with open(doc, "w") as f:
        f.write(book)
    env = dict(os.environ, IPCTAX_HEADERS=" ".join(headers))
    return subprocess.run(["pandoc", doc, "--to", to, "--lua-filter", "paper/filters/index.lua",
                           "--lua-filter", "paper/filters/chunks.lua"],
                          cwd=ROOT, env=env, capture_output=True, text=True)


def entry(html, name):
    """The index's entry of name, as text: the link targets kept in (#...)."""
    for item in re.findall(r"<li>(.*?)</li>", html, re.S):
        if re.match(r"<code>" + re.escape(name) + r"</code>", item):
            item = re.sub(r'<a href="#([^"]+)">', r"(#\1)", item)
            return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", item))
    return None


def main():
    c = Checks()
    with tempfile.TemporaryDirectory(prefix="ipctax-index-") as tmp:
        a, b = os.path.join(tmp, "a.h"), os.path.join(tmp, "b.h")
        with open(a, "w") as f:
            f.write(HEADER_A)
        with open(b, "w") as f:
            f.write(HEADER_B)
        out = weave(tmp, BOOK, [a, b], "html")
        c.check(out.returncode == 0 and 'id="sec:identifiers"' in out.stdout,
                "the book ends with its index of identifiers", out.stderr[-300:])
        html = out.stdout
        expected = {
            "gauge_twice": ("function", "#chunk-double-it", ["#chunk-code-a-a-h", "#chunk-steps"]),
            "struct gauge": ("type", "#chunk-code-a-a-h", ["#chunk-double-it", "#chunk-steps"]),
            "step": ("type", "#chunk-code-a-a-h", []),
            "step_up": ("function", "#chunk-steps", ["#chunk-code-a-a-h"]),
            "step_down": ("function", "#chunk-steps", ["#chunk-code-a-a-h"]),
            "gauge_empty": ("function", "#chunk-code-a-a-h", []),
            "gauge_name": ("function", "#chunk-names", []),
        }
        for name, (kind, defined, used) in expected.items():
            e = entry(html, name) or ""
            links = re.findall(r"\(#[^)]+\)", e)
            ok = (", %s of " % kind) in e and links[:1] == ["(%s)" % defined] and \
                sorted(links[1:]) == sorted("(%s)" % u for u in used)
            c.check(ok, "%s: a %s, defined in %s, used in %s" % (name, kind, defined,
                                                                 ", ".join(used) or "nothing"),
                    e or "no entry")
        c.check(entry(html, "UNINDEXED") is None and entry(html, "A_H") is None,
                "an enum constant and a macro are not indexed")
        out = weave(tmp, BOOK, [a, b], "latex")
        c.check(out.returncode == 0 and "{chunk-double-it}" in out.stdout and "\\ChunkNum{" in out.stdout
                and "Index of identifiers" in out.stdout,
                "in LaTeX the entries link the chunks' destinations", out.stderr[-300:])
        out = weave(tmp, BOOK.replace("const char *gauge_name(int which)\n{",
                                      "static const char *gauge_label(int which)\n{"), [a, b],
                    "html")
        c.check(out.returncode != 0 and "gauge_name" in out.stderr and "b.h" in out.stderr,
                "a function that no chunk defines stops the weave, naming it and its header",
                "exit %d: %s" % (out.returncode, out.stderr.strip()[-300:]))
    return c.summary("check-index")


if __name__ == "__main__":
    sys.exit(main())
