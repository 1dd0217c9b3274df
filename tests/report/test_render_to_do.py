"""The untouched stub reads calmly: checks that could not run only because a function still raises
NotImplementedError are marked TO DO, with one line naming the function, not one ERROR section each.
Any other error keeps ERROR and its section. A 0-point check (the gate computes_attention) shows no score."""

from __future__ import annotations

import io
import re

import pytest
from rich.console import Console
from support.corpora import REFERENCE, TEMPLATE

from grader import grade
from grader.report.html import render_html
from grader.report.markdown import render_markdown
from grader.report.terminal import render_terminal

STUB_HEAD = '''
class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        raise NotImplementedError("SingleHead.__init__ is not written yet")
'''
STUDENT_SAYS = "is not written yet"  # the template's own messages: the one line says it instead


@pytest.fixture(scope="module")
def reports(sandbox, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("not_written")
    source = REFERENCE.read_text()
    files = {"stub": TEMPLATE, "head": tmp / "head.py", "other": tmp / "other.py"}
    files["head"].write_text(source[: source.index("class SingleHead")] + STUB_HEAD)
    files["other"].write_text(TEMPLATE.read_text().replace(
        'raise NotImplementedError("causal_attention is not written yet")', 'raise RuntimeError("oops")'))
    return {name: grade.self_check(path, sandbox=sandbox) for name, path in files.items()}


def plain(report) -> str:
    buf = io.StringIO()
    render_terminal(report, console=Console(file=buf, width=200, no_color=True))
    return buf.getvalue()


def rich(report) -> str:
    buf = io.StringIO()
    render_terminal(report, console=Console(file=buf, width=200, force_terminal=True))
    return re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())


def rows(text: str, word: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith(f"  {word} ")]


def test_the_stub_is_to_do_with_one_line(reports):
    report = reports["stub"]
    n = len(report.checks)
    out = plain(report)
    assert len(rows(out, "TO DO")) == n and not rows(out, "ERROR") and not rows(out, "FAILED")
    assert "ERROR:" not in out and STUDENT_SAYS not in out
    assert out.count("Not written yet: causal_attention still raises NotImplementedError.") == 1
    assert report.score == 0  # the score is the same: only how it reads changed
    assert rich(report).count("\u2026 to do") == n and "! error" not in rich(report)

    md = render_markdown(report)
    assert md.count("| TO DO |") == n and "## What to fix" not in md and STUDENT_SAYS not in md
    assert md.count("Not written yet: causal\\_attention") == 1

    html = render_html(report)
    assert html.count("\u2026 to do</td>") == n and 'class="fail"' not in html and STUDENT_SAYS not in html
    assert html.count("Not written yet: causal_attention") == 1


def test_a_stub_single_head_is_to_do_and_the_rest_reads_as_usual(reports):
    report = reports["head"]
    out = plain(report)
    waiting = {c.title for c in report.checks if c.id.startswith("single_head")}
    assert {line.split("  ")[-1] for line in rows(out, "TO DO")} == waiting
    assert len(rows(out, "passed")) == len(report.checks) - len(waiting)
    assert "Not written yet: SingleHead still raises NotImplementedError." in out and STUDENT_SAYS not in out
    md = render_markdown(report)
    assert md.count("| TO DO |") == len(waiting) and "SingleHead module (" not in md


def test_other_errors_keep_error_and_their_section(reports):
    report = reports["other"]
    out = plain(report)
    assert not rows(out, "TO DO") and "Not written yet" not in out
    assert rows(out, "ERROR") and "ERROR: Worked example" in out
    assert re.search(r"RuntimeError at line \d+ \(`raise RuntimeError\(\"oops\"\)`\): oops", out)  # its own line
    md = render_markdown(report)
    assert "| TO DO |" not in md and "### Worked example (ERROR)" in md
    html = render_html(report)
    assert "to do</td>" not in html and 'class="fail"' in html


@pytest.mark.parametrize("name", ["stub", "head"])
def test_a_zero_point_check_shows_no_score(reports, name):
    report = reports[name]
    gate = next(c for c in report.checks if c.max_score == 0)
    assert gate.id == "computes_attention"
    line = next(line for line in plain(report).splitlines() if line.endswith(gate.title))
    assert "no points" in line and " / " not in line
    assert "0 / 0" not in plain(report) and "0 / 0" not in rich(report)
    md_row = next(line for line in render_markdown(report).splitlines() if f"| {gate.title} |" in line)
    assert md_row.endswith("| no points |")
    html = render_html(report)
    assert f"{gate.title}</td>" in html and '<td class="num">no points</td>' in html and "0 / 0" not in html
