"""The woven page whole, from the page as it is published.

site/index.html carries Parts II and III gzipped, as base64 inside the page
(code/tools/pack.c, paper/97-appendix-page.md). whole(html) puts them back
where paper/web/pack.js puts them in the browser, so that a test can read
every chunk of the page in its source; it raises ValueError when the packed
part does not inflate to the byte count written beside it."""
import base64
import re
import zlib

PACKED = re.compile(r'<div id="packed" data-bytes="(\d+)">.*?'
                    r'<script type="application/gzip" id="packed-data">([A-Za-z0-9+/=]*)'
                    r'</script></div>', re.S)


def is_packed(html):
    return PACKED.search(html) is not None


def whole(html):
    m = PACKED.search(html)
    if m is None:
        return html
    region = zlib.decompress(base64.b64decode(m.group(2), validate=True), 16 + zlib.MAX_WBITS)
    if len(region) != int(m.group(1)):
        raise ValueError("the packed part inflates to %d bytes, not the %s written beside it"
                         % (len(region), m.group(1)))
    return html[:m.start()] + region.decode("utf-8") + html[m.end():]
