"""`make demo`: grade the bundled example as a student would see it, and write its HTML report."""

from __future__ import annotations

from pathlib import Path

from grader.grade import self_check
from grader.paths import ROOT
from grader.report.html import write_html
from grader.report.terminal import render_terminal

EXAMPLE = ROOT / "examples" / "submission.py"
OUT = ROOT / "build" / "demo-report.html"


def run_demo(example: Path = EXAMPLE, out: Path = OUT) -> int:
    print(f"Self-checking {example.relative_to(ROOT)} (it fills forbidden scores with 0):\n")
    report = self_check(example)
    render_terminal(report, audience="student")
    out.parent.mkdir(parents=True, exist_ok=True)
    write_html(report, out, audience="student")
    print(f"\nHTML report with heatmaps: {out}")
    return 0
