#!/usr/bin/python3
"""check_citation.py - the addresses reach everything from CITATION.cff alone.

    /usr/bin/python3 tests/check_citation.py CITATION.cff

The repository's and the landing page's addresses are configured in one
place, CITATION.cff's repository-code and url (paper/filters/reader.lua).
This weaves a one-paragraph document through reader.lua twice, as HTML and
as LaTeX: with the file as it is, and with a copy that gives both
addresses. Left out, nothing may name an address (no citation_pdf_url,
citation_public_url or DC.source tag); filled in, the tags, the citation,
the reproduce box and the paper's links into book.pdf must all use them.
It also checks the tags every copy carries: both licences, the authors as
an entity, the report's institution; and that a copy re-woven from a
reader's own run (data/ not committed) cites the published version, which
others can retrieve, and names the local run apart, in the page, the PDF
and the BibTeX. Needs pandoc (Debian's).
"""

import os
import re
import subprocess
import sys
import tempfile

from checks import Checks

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SITE = "https://example.org/ipctax/"
REPO = "https://example.org/ipctax.git"


def weave(cff, fmt, extra_env=None, values=None):
    with tempfile.TemporaryDirectory(prefix="ipctax-citation-") as tmp:
        doc = os.path.join(tmp, "doc.md")
        with open(doc, "w") as f:
            f.write("---\ntitle: test\nabstract: An abstract.\n---\n\nA paragraph.\n")
        with open(os.path.join(tmp, "values.csv"), "w") as f:
            f.write("key,value\n" + "".join("%s,%s\n" % kv for kv in (values or {}).items()))
        env = dict(os.environ, IPCTAX_CITATION=cff, IPCTAX_WOVEN=tmp,
                   IPCTAX_WEAVE_COMMIT="0123456789ab", IPCTAX_DATA_STATE="committed in 0123456")
        env.update(extra_env or {})
        out = subprocess.run(["pandoc", doc, "--standalone", "--to", fmt,
                              "--lua-filter", "paper/filters/reader.lua",
                              "--lua-filter", "paper/filters/head.lua"],
                             cwd=ROOT, env=env, capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(out.stderr.strip())
        return out.stdout


def tags(html, name):
    return re.findall(r'<meta name="%s" content="([^"]*)"' % re.escape(name), html)


def with_addresses(cff_text):
    """The same file with both addresses, as a user would add them."""
    lines = cff_text.splitlines(keepends=True)
    at = next(i for i, l in enumerate(lines) if l.startswith("title:"))
    return "".join(lines[:at] + ['url: "%s"\n' % SITE, 'repository-code: "%s"\n' % REPO]
                   + lines[at:])


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    cff = os.path.abspath(argv[1])
    c = Checks()
    html = weave(cff, "html5")
    for name in ("citation_pdf_url", "citation_public_url", "DC.source"):
        c.check(not tags(html, name), "without addresses there is no %s tag" % name)
    c.check(SITE not in html and "https://" not in " ".join(tags(html, "citation_public_url")),
            "without addresses the page names none")
    c.check("no public address yet" in html and "no public address yet" in weave(cff, "latex"),
            "without an address the page and the PDF say plainly that there is none")
    licence = tags(html, "dcterms.license")
    c.check(any("creativecommons.org/licenses/by/4.0" in u for u in licence)
            and any("license/mit" in u for u in licence),
            "the tags name both licences", repr(licence))
    authors = tags(html, "citation_author")
    c.check(authors and all(a.endswith(",") or ", " in a for a in authors),
            "citation_author keeps an entity whole (\"Name,\")", repr(authors))
    c.check(bool(tags(html, "citation_technical_report_institution")),
            "the report's institution is a tag")

    with tempfile.TemporaryDirectory(prefix="ipctax-cff-") as tmp:
        filled = os.path.join(tmp, "CITATION.cff")
        with open(cff) as src, open(filled, "w") as dst:
            dst.write(with_addresses(src.read()))
        html = weave(filled, "html5")
        c.check(tags(html, "citation_pdf_url") == [SITE + "paper.pdf"],
                "with the address, citation_pdf_url is the published paper.pdf",
                repr(tags(html, "citation_pdf_url")))
        c.check(tags(html, "citation_public_url") == [SITE], "citation_public_url is the landing page")
        c.check(tags(html, "DC.source") == [REPO], "DC.source is the repository")
        plain = re.search(r'id="citation-plain">(.*?)</p>', html, re.S)
        c.check(plain and (SITE in plain.group(1) or REPO in plain.group(1)),
                "the citation gives the address")
        c.check('href="%s"' % REPO in html, "the reproduce box links the repository")
        c.check("no public address yet" not in html, "with the address, none is said to lack")
        tex = weave(filled, "latex", {"IPCTAX_EDITION": "paper"})
        c.check("\\renewcommand{\\IpctaxBookPDF}{%sbook.pdf}" % SITE in tex,
                "the paper's links into book.pdf use the published address")
        c.check(REPO in tex and SITE + "index.html" in tex,
                "the PDF's boxes give the repository and the page")
    # A copy re-woven from a reader's own run: the published version is cited.
    local = {"machine.commit": "1111111", "machine.date": "2026-12-03T10:00:00Z",
             "machine.cpu": "Test CPU", "compare.published.commit": "6061c77",
             "compare.same_run": "no"}
    env = {"IPCTAX_DATA_STATE": "not committed", "IPCTAX_PUBLISHED_DATA": "committed in abcdef123456"}
    html = weave(cff, "html5", env, local)
    plain = re.search(r'id="citation-plain">(.*?)</p>', html, re.S)
    named = re.search(r'id="citation-local">(.*?)</p>', html, re.S)
    bib = re.search(r'id="citation-bibtex"><code>(.*?)</code>', html, re.S)
    c.check(plain and "data measured at commit 6061c77 (committed in abcdef123456)" in plain.group(1)
            and "1111111" not in plain.group(1) and "not committed" not in plain.group(1),
            "a copy of a local run cites the published version's data",
            plain.group(1) if plain else "no citation")
    c.check(named and "1111111" in named.group(1) and "2026-12-03T10:00:00Z" in named.group(1)
            and "Test CPU" in named.group(1),
            "and names the local run apart: its date, machine and commit",
            named.group(1) if named else "no note of the local run")
    c.check(bib and "6061c77" in bib.group(1) and "1111111" not in bib.group(1),
            "its BibTeX cites the published version", bib.group(1) if bib else "no BibTeX")
    tex = weave(cff, "latex", env, local)
    c.check("committed in abcdef123456" in tex and "shows a local run" in tex,
            "the PDF cites the published version and names the local run")
    local["compare.same_run"] = "yes"
    html = weave(cff, "html5", {"IPCTAX_DATA_STATE": "committed in abcdef123456"}, local)
    c.check('id="citation-local"' not in html, "the published copy names no local run")
    return c.summary("check-citation")


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except RuntimeError as e:
        print("check-citation: pandoc failed: %s" % e)
        sys.exit(1)
