"""Code a student typed or pasted into a platform's text editor, taken back out of the HTML page it is exported as.

Moodle exports online text as `<!DOCTYPE html><html><head>...</head><body>TEXT</body></html>` where TEXT is
what its editor stored: paragraphs (`<p>`), `<br>` line breaks, `&nbsp;` for runs of spaces, `&lt;` for `<`,
or `<pre>` blocks; plain-text format goes through nl2br (`line<br />` + newline). Canvas's text entries are
similar pages. The text is rebuilt line by line, entities unescaped, non-breaking spaces made spaces. Prose
around the code (a "Here is my answer:" line) is left out when the text does not parse with it.

The page is read by `_events`, a tokenizer linear in the page's length, not by `html.parser`: that one
takes seconds for 12 kB of unclosed tags (`<a <a <a ...`, 2 s; 24 kB, 13 s), and a page is a student's.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from html import unescape

from grader.intake.bounds import Unreadable, parse_python

BREAKS = {"p", "div", "br", "pre", "li", "ul", "ol", "tr", "table", "blockquote", "section", "article",
          "h1", "h2", "h3", "h4", "h5", "h6", "hr", "code-block"}
INVISIBLE = {"head", "script", "style", "title", "template"}
CODE_START = re.compile(r"^(import |from |def |class |@|async def |#|\"\"\"|'''|[A-Za-z_]\w*\s*=)")
MAX_TRIM = 60  # prose lines tried away at either end
MAX_TRIM_CHARS = 64 << 10  # a solution is a few kB: never hundreds of parses of a huge paste


# A tag: its name, then anything up to its `>` but never past the next `<` (each character is looked
# at by one attempt at most). Declarations and processing instructions (`<!DOCTYPE html>`) are skipped.
_TAG = re.compile(r"<(/?)([A-Za-z][\w:.-]*)([^<>]*)>|<[!?][^<>]*>")


def _events(html: str) -> Iterator[tuple[str, str]]:
    """("start" | "end" | "data", tag name or text), in one pass over the page."""
    i, n = 0, len(html)
    while i < n:
        lt = html.find("<", i)
        if lt < 0:
            yield "data", unescape(html[i:])
            return
        if lt > i:
            yield "data", unescape(html[i:lt])
        if html.startswith("<!--", lt):
            end = html.find("-->", lt + 4)
            i = n if end < 0 else end + 3
            continue
        m = _TAG.match(html, lt)
        if m is None:
            yield "data", "<"  # a `<` that opens no tag is text, as browsers show it
            i = lt + 1
            continue
        if m[2]:
            tag = m[2].lower()
            yield ("end", tag) if m[1] else ("start", tag)
            if not m[1] and m[3].rstrip().endswith("/"):
                yield "end", tag
        i = m.end()


class _Text:
    def __init__(self) -> None:
        self.out: list[str] = []
        self.pre = 0
        self.hidden = 0

    def _newline(self) -> None:
        if self.out and not self.out[-1].endswith("\n"):
            self.out.append("\n")

    def handle_starttag(self, tag: str) -> None:
        if self.hidden and tag not in INVISIBLE:
            return  # inside <script> or <style>: not markup the student wrote
        if tag in INVISIBLE:
            self.hidden += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in BREAKS:
            self._newline()
            self.pre += tag == "pre"

    def handle_endtag(self, tag: str) -> None:
        if self.hidden and tag not in INVISIBLE:
            return
        if tag in INVISIBLE:
            self.hidden = max(0, self.hidden - 1)
        elif tag in BREAKS and tag != "br":
            self._newline()
            if tag == "pre":
                self.pre = max(0, self.pre - 1)

    def handle_data(self, data: str) -> None:
        if self.hidden:
            return
        data = data.replace("\r\n", "\n").replace("\r", "\n")
        if not self.pre:
            # Outside <pre> a newline in the HTML source is layout, not text; right after a <br> or a
            # paragraph it is nl2br's own newline. Either way the break it stands for is already there.
            at_line_start = not self.out or self.out[-1].endswith("\n")
            data = data.lstrip("\n") if at_line_start else data
            data = data.replace("\n", "\n" if data.strip() else "")
        self.out.append(data)


def html_to_text(html: str) -> str:
    """The text of an exported online-text page, one line per line the student saw."""
    parser = _Text()
    handlers = {"start": parser.handle_starttag, "end": parser.handle_endtag, "data": parser.handle_data}
    for kind, value in _events(html):
        handlers[kind](value)
    text = "".join(parser.out).replace("\xa0", " ").replace("\u200b", "").replace("\ufeff", "")
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return textwrap.dedent("\n".join(lines)) + ("\n" if lines else "")


def _parses(text: str) -> bool:
    try:
        parse_python(text)
    except (SyntaxError, Unreadable):
        return False
    return True


def code_of(html: str) -> tuple[str, bool]:
    """(the code, whether prose around it was left out). When no part of it parses, the whole text."""
    text = html_to_text(html)
    if len(text) > MAX_TRIM_CHARS or _parses(text):
        return text, False
    lines = text.split("\n")
    starts = [i for i, line in enumerate(lines[:MAX_TRIM]) if CODE_START.match(line)]
    for start in starts[:5]:
        for end in range(len(lines), max(start, len(lines) - MAX_TRIM), -1):
            candidate = "\n".join(lines[start:end]).rstrip() + "\n"
            if _parses(candidate):
                return candidate, True
    return text, False
