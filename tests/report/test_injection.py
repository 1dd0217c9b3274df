"""Student text reaches every renderer inert: Gradescope's markdown, markdown, HTML, the
terminal, and the progress lines of a class run (file names included)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from grader import grade
from grader.cli import main
from grader.report.formats import REPORT_FORMATS
from grader.report.gradescope import to_gradescope
from grader.report.html import render_html
from grader.report.markdown import render_markdown
from grader.report.terminal import render_terminal

GALLERY = Path(__file__).resolve().parents[1] / "gallery"
STEERING = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]")


@pytest.fixture(scope="module")
def report(sandbox):
    return grade.grade_file(GALLERY / "inject_text.py", sandbox=sandbox, audience="instructor")


def _markdown_is_inert(text: str) -> None:
    assert not STEERING.search(text), repr(STEERING.search(text))
    assert not re.search(r"^\s*#.*All checks passed", text, re.M), "a student line became a heading"
    # An image or a link needs an unescaped "![" or "](": escaped brackets are literal text.
    assert not re.search(r"(?<!\\)!(?<!\\)\[|(?<!\\)\]\(", text) and "<img" not in text


def test_the_payload_reaches_the_report(report):
    assert "All checks passed" in report.model_dump_json()  # the negative control: it is there to escape


def test_gradescope_output_is_inert(report):
    results = to_gradescope(report)
    for text in [results.output, *(t.output for t in results.tests), *(t.name for t in results.tests)]:
        _markdown_is_inert(text)


def _markdown_file_is_inert(text: str) -> None:
    code = re.findall(r"(`{3,})text\n(.*?)\n\1", text, re.S)  # fenced code is literal text
    outside = re.sub(r"(`{3,})text\n.*?\n\1", "", text, flags=re.S)
    _markdown_is_inert(outside)
    assert all(not STEERING.search(body) for _, body in code)


def _html_is_inert(text: str) -> None:
    assert "<img src=x" not in text and not STEERING.search(text)


# What inert means in each format of the registry (grader/report/formats.py).
INERT = {"markdown": _markdown_file_is_inert, "html": _html_is_inert}


def test_markdown_is_inert(report):
    _markdown_file_is_inert(render_markdown(report, audience="instructor"))


def test_html_is_inert(report):
    _html_is_inert(render_html(report, audience="instructor"))


@pytest.mark.parametrize("fmt", REPORT_FORMATS.values(), ids=REPORT_FORMATS.keys())
def test_every_file_format_is_inert(report, fmt):
    # Every format the registry declares, a new one included: it fails until its escaping rule is written.
    assert fmt.name in INERT, f"say what inert means for {fmt.name} in INERT"
    text = fmt.render(report, audience="instructor")
    assert "All checks passed" in text  # the payload is there, to be made inert
    INERT[fmt.name](text)


def test_terminal_is_inert(report):
    for force in (False, True):
        buf = io.StringIO()
        render_terminal(report, console=Console(file=buf, force_terminal=force, width=120), audience="instructor")
        shown = re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue()) if force else buf.getvalue()  # rich's own styling
        assert not STEERING.search(shown), repr(STEERING.search(shown))


def test_file_names_in_progress_lines_are_inert(tmp_path, capsys):
    odd = tmp_path / "e\x1b[2Jvil\u202e.py"
    odd.write_text("def causal_attention(q, k, v):\n    return v, v\n")
    plain = tmp_path / "plain.py"
    plain.write_text("def causal_attention(q, k, v):\n    return v, v\n")
    main(["grade", str(odd), str(plain)])  # a class run: progress and the closing lines
    main(["grade", str(odd)])  # one file: its report, headed by its name
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert "\x1b" not in shown and "\u202e" not in shown
    assert "e\\x1b[2Jvil\\u202e.py" in captured.out  # the name is there, visibly escaped
