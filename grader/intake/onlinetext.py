"""Code a student typed or pasted into a platform's text editor, taken back out of the HTML page it is exported as.

Moodle exports online text as `<!DOCTYPE html><html><head>...</head><body>TEXT</body></html>` where TEXT is
what its editor stored: paragraphs (`<p>`), `<br>` line breaks, `&nbsp;` for runs of spaces, `&lt;` for `<`,
or `<pre>` blocks; plain-text format goes through nl2br (`line<br />` + newline). Canvas's text entries are
similar pages. The text is rebuilt line by line, entities unescaped, non-breaking spaces made spaces. Prose
around the code (a "Here is my answer:" line) is left out when the text does not parse with it.
"""

from __future__ import annotations

import ast
import re
import textwrap
from html.parser import HTMLParser

BREAKS = {"p", "div", "br", "pre", "li", "ul", "ol", "tr", "table", "blockquote", "section", "article",
          "h1", "h2", "h3", "h4", "h5", "h6", "hr", "code-block"}
INVISIBLE = {"head", "script", "style", "title", "template"}
CODE_START = re.compile(r"^(import |from |def |class |@|async def |#|\"\"\"|'''|[A-Za-z_]\w*\s*=)")
MAX_TRIM = 60  # prose lines tried away at either end
MAX_TRIM_CHARS = 64 << 10  # a solution is a few kB: never hundreds of parses of a huge paste


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.pre = 0
        self.hidden = 0

    def _newline(self) -> None:
        if self.out and not self.out[-1].endswith("\n"):
            self.out.append("\n")

    def handle_starttag(self, tag, attrs) -> None:
        if tag in INVISIBLE:
            self.hidden += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in BREAKS:
            self._newline()
            self.pre += tag == "pre"

    def handle_startendtag(self, tag, attrs) -> None:
        if tag == "br":
            self.out.append("\n")

    def handle_endtag(self, tag) -> None:
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
    parser.feed(html)
    parser.close()
    text = "".join(parser.out).replace("\xa0", " ").replace("\u200b", "").replace("\ufeff", "")
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return textwrap.dedent("\n".join(lines)) + ("\n" if lines else "")


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
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
