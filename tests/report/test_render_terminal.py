"""Terminal output: rich table and panel on a colour terminal, plain aligned text otherwise."""

from __future__ import annotations

import io
import re

from rich.console import Console
from support.reports import failing_report, passing_report

from grader.report.terminal import printable, render_terminal

_ANSI = re.compile(r"\x1b\[")
_BOX = set("─│╭╮╰╯┃━")


def _render(report, *, audience="student", **console_kw) -> str:
    buf = io.StringIO()
    render_terminal(report, console=Console(file=buf, width=100, **console_kw), audience=audience)
    return buf.getvalue()


def test_pipe_gets_plain_text(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = _render(failing_report())
    assert not _ANSI.search(out) and not (_BOX & set(out))
    assert "Diagnosis: Zero instead of -inf in the mask" in out
    assert "  Reread: Hide future positions before normalization" in out


def test_plain_points_are_aligned(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    report = failing_report()
    report.checks[0].max_score = 12.0  # a wider number must not push its row out of line
    rows = [line for line in _render(report).splitlines() if re.match(r"  (FAILED|passed)\s", line)]
    assert len(rows) == 4
    assert len({line.index(" / ") for line in rows}) == 1, rows
    titles = [c.title for c in report.checks if c.visibility == "visible"]
    assert len({len(line) - len(title) for line, title in zip(rows, titles, strict=True)}) == 1, rows


def test_no_color_gets_plain_text_even_on_a_terminal(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    out = _render(failing_report(), force_terminal=True)
    assert not _ANSI.search(out) and not (_BOX & set(out))


def test_terminal_gets_table_and_diagnosis_panel(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = _render(failing_report(), force_terminal=True, color_system="truecolor")
    assert _ANSI.search(out)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "╭─ Zero instead of -inf in the mask" in plain
    table = [line for line in plain.splitlines() if line.rstrip().endswith(("/   3", "/   2", "/ 2.5"))]
    assert len(table) == 4 and len({len(line.rstrip()) for line in table}) == 1  # right-aligned points
    assert "expected weights row 0: [1.000000, 0.000000, 0.000000]" in plain


def test_correct_submission_is_praised(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    for kw in ({}, {"force_terminal": True}):
        out = _render(passing_report(), **kw)
        assert "All 4 checks passed. Nicely done." in out
        assert "FAILED" not in out and "failed" not in out


def test_student_output_cannot_drive_the_terminal(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    report = failing_report()
    report.runtime.output = "hi\x1b[2J\x1b]0;pwned\x07 [bold]x[/bold]\n"
    for kw in ({}, {"force_terminal": True, "color_system": None}):
        out = _render(report, **kw)
        assert "\x1b" not in out and "\x07" not in out
        assert "\\x1b[2J" in out and "[bold]x[/bold]" in out  # shown literally, markup not applied
    assert printable("a\tb\nc\x00") == "a\tb\nc\\x00"


def test_hidden_checks_only_for_instructors(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert "Hidden probe" not in _render(failing_report())
    assert "1 hidden check(s) are never shown" in _render(failing_report())
    assert "Hidden probe [hidden]" in _render(failing_report(), audience="instructor")


def test_details_are_limited_to_a_screenful(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    report = failing_report()
    for kw in ({}, {"force_terminal": True}):
        buf = io.StringIO()
        render_terminal(report, console=Console(file=buf, width=100, **kw), details=1)
        out = re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())
        assert re.search(r"expected:? +weights row 0", out)
        assert "max change 1.234567" not in out
        # the others get one line each, naming the check and what it found (issue 19: every failing check)
        rest = [c for c in report.checks if c.visibility == "visible" and c.status == "failed"][1:]
        assert len(rest) == 2
        for c in rest:
            assert f"FAILED: {c.title}: {c.feedback.splitlines()[-1].split('. ')[0][:30]}" in out
    class_run = _render(report, audience="instructor")
    assert "observed" not in class_run and "more check(s)" not in class_run
    assert "Diagnosis: Zero instead of -inf in the mask" in class_run


def test_a_capped_total_says_why_in_its_header(monkeypatch):
    """Found by a user: a leak's total was capped at 43.5 / 87, but the terminal listed only the worked
    example's details and never said the total was capped, or by which check."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    report = failing_report()
    leak = next(c for c in report.checks if c.visibility == "visible" and c.status == "failed")
    leak = leak.model_copy(update={"ceiling": 0.1})
    capped = report.model_copy(update={"checks": [leak if c.id == leak.id else c for c in report.checks],
                                       "score": round(0.1 * report.max_score, 6)})
    for console_kw in ({}, {"force_terminal": True}):
        out = _render(capped, audience="instructor", **console_kw)
        assert "Capped at" in re.sub(r"\x1b\[[0-9;]*m", "", out) and leak.title in out
    assert "Capped at" not in _render(report, audience="instructor")


def test_printable_escapes_by_category_whatever_the_path():
    """ASCII text takes a shortcut (only C0 controls and DEL steer there): it must escape exactly what the
    character-by-character reading by Unicode category does, and non-ASCII text still takes that reading."""
    import unicodedata

    from grader.report.view import _STEERING, _escape

    def by_category(text: str) -> str:
        return "".join(ch if ch in "\n\t" or unicodedata.category(ch) not in _STEERING else _escape(ch) for ch in text)

    samples = [chr(c) for c in range(0x180)] + [f"x{chr(c)}y\n\t" for c in range(0x180)]
    samples += ["plain text", "", "caf\u00e9 \u202eevil\u202c", "line\u2028break", "\x1b[2J", "tab\tand\nnewline"]
    for text in samples:
        assert printable(text) == by_category(text), repr(text)
