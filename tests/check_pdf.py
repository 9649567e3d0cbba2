#!/usr/bin/python3
"""check_pdf.py - the two PDFs of site/ are what a reviewer and a reader need.

    /usr/bin/python3 tests/check_pdf.py site/paper.pdf site/book.pdf [site/index.html]

  - paper.pdf, the paper alone (Part I and its references), has at most
    MAX_PAPER_PAGES pages, holds no chunk of the program, and its links into
    the program open book.pdf (GoToR actions to named destinations);
  - book.pdf holds the whole book: its outline lists Part II and Part III,
    and every chunk is a named destination there (the paper's links land
    on them);
  - given the page, every chunk anchor of the page is a destination of
    book.pdf, so a chunk has the same name, and the same label, in both
    (chunks.lua numbers them once for both).

PDFs compress their objects (pdfTeX writes object streams), so the file is
read by inflating every stream; no tool beyond Python's zlib is needed. The
last line is "check-pdf: N passed, M failed"; the exit status is non-zero
when any check failed.
"""

import os
import re
import sys
import zlib

from checks import Checks
from packed_page import whole

# The Makefile's PAPER_MAX_PAGES, the one place the limit is kept.
MAX_PAPER_PAGES = int(os.environ.get("PAPER_MAX_PAGES", "16"))


def objects(path):
    """The PDF's bytes with every Flate stream inflated after it."""
    with open(path, "rb") as f:
        data = f.read()
    parts = [data]
    for m in re.finditer(rb"stream\r?\n", data):
        end = data.find(b"endstream", m.end())
        try:
            parts.append(zlib.decompress(data[m.end():end]))
        except zlib.error:
            pass
    return b"\n".join(parts)


def pages(pdf):
    """The page count: the largest /Count of a /Pages node."""
    counts = [int(n) for n in re.findall(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)", pdf)]
    counts += [int(n) for n in re.findall(rb"/Count\s+(\d+)[^>]*?/Type\s*/Pages\b", pdf)]
    return max(counts) if counts else 0


def pdf_text(s):
    """A PDF string as text (PDFDocEncoding, or UTF-16 with its mark)."""
    s = re.sub(rb"\\([0-7]{1,3})", lambda m: bytes([int(m.group(1), 8)]), s)
    s = re.sub(rb"\\(.)", rb"\1", s)
    if s.startswith(b"\xfe\xff"):
        return s[2:].decode("utf-16-be", "replace")
    return s.decode("latin-1")


def outline(pdf):
    """The outline's entries (and the document's title): hyperref writes them
    as UTF-16 strings, each starting with its byte-order mark, often as
    objects of their own inside object streams."""
    return [pdf_text(s) for s in re.findall(rb"\(((?:\\376\\377|\xfe\xff)(?:\\.|[^\\)])*)\)", pdf)]


def destinations(pdf):
    """Named destinations: the names in the /Names arrays of the name tree."""
    names = set()
    for arr in re.findall(rb"/Names\s*\[(.*?)\]", pdf, re.S):
        names.update(pdf_text(n) for n in re.findall(rb"\(((?:\\.|[^\\)])*)\)", arr))
    return names


def main(argv):
    if len(argv) not in (3, 4):
        print(__doc__)
        return 2
    c = Checks()
    try:
        paper, book = objects(argv[1]), objects(argv[2])
    except OSError as e:
        print("check-pdf: %s" % e)
        return 1
    n = pages(paper)
    c.check(0 < n <= MAX_PAPER_PAGES, "paper.pdf has %d pages, at most %d" % (n, MAX_PAPER_PAGES))
    book_pages = pages(book)
    c.check(book_pages > n, "book.pdf has %d pages, more than the paper" % book_pages)
    titles = outline(book)
    for part in ("The program", "Appendices"):
        c.check(any(part in t for t in titles), "book.pdf's outline lists the part %r" % part,
                ", ".join(titles[:8]))
    paper_titles = outline(paper)
    c.check(not any("The program" in t for t in paper_titles)
            and any("Introduction" in t for t in paper_titles)
            and any("References" in t for t in paper_titles),
            "paper.pdf's outline is Part I and its references, without Part II",
            ", ".join(paper_titles))
    book_dests = destinations(book)
    chunks = sorted(d for d in book_dests if d.startswith("chunk-"))
    c.check(len(chunks) > 100, "book.pdf holds the program: %d chunks are destinations" % len(chunks))
    c.check(not any(d.startswith("chunk-") for d in destinations(paper)),
            "paper.pdf holds no chunk of the program")
    links = re.findall(rb"/F\s*\(((?:\\.|[^\\)])*)\)\s*/S\s*/GoToR\s*/D\s*\(((?:\\.|[^\\)])*)\)", paper)
    links += [(f, d) for d, f in re.findall(
        rb"/D\s*\(((?:\\.|[^\\)])*)\)[^>]*?/F\s*\(((?:\\.|[^\\)])*)\)\s*/S\s*/GoToR", paper)]
    into_book = [(pdf_text(f), pdf_text(d)) for f, d in links]
    missing = sorted(set(d for f, d in into_book if d not in book_dests))
    c.check(into_book and all(f.endswith("book.pdf") for f, _ in into_book) and not missing,
            "paper.pdf's %d links into the program open book.pdf at a destination it has"
            % len(into_book), ", ".join(missing[:5]))
    if len(argv) == 4:
        with open(argv[3], encoding="utf-8") as f:
            page = set(re.findall(r'<details class="chunk[^"]*" id="([^"]+)"', whole(f.read())))
        absent = sorted(page - book_dests)
        c.check(page and not absent, "every chunk of the page (%d) is a destination of book.pdf"
                % len(page), ", ".join(absent[:5]))
    return c.summary("check-pdf")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
