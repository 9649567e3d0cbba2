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
an entity, the report's institution. Needs pandoc (Debian's).
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


def weave(cff, fmt, extra_env=None):
    with tempfile.TemporaryDirectory(prefix="ipctax-citation-") as tmp:
        doc = os.path.join(tmp, "doc.md")
        with open(doc, "w") as f:
            f.write("---\ntitle: test\nabstract: An abstract.\n---\n\nA paragraph.\n")
        env = dict(os.environ, IPCTAX_CITATION=cff, IPCTAX_WOVEN=tmp,
                   IPCTAX_WEAVE_COMMIT="0123456789ab", IPCTAX_DATA_STATE="committed in 0123456",
                   **(extra_env or {}))
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
    return c.summary("check-citation")


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except RuntimeError as e:
        print("check-citation: pandoc failed: %s" % e)
        sys.exit(1)
