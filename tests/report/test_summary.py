"""summary.html and summary.md: every part of the class at a glance, student text inert, seen in Chromium."""

from __future__ import annotations

import re
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from grader.intake.models import Skipped
from grader.report.models import CheckTally, ClassSummary, MisconceptionTally, SimilarPair, SummaryRow
from grader.report.summary import render_summary_html, render_summary_markdown, write_summary

CHROMIUM = Path("/usr/bin/chromium")


def summary() -> ClassSummary:
    rows = [
        SummaryRow(student="canvas:1", name="Ada <script>alert(1)</script>", submission="ada.py", status="graded",
                   score=100, max_score=100, wall_s=0.04, report="ada"),
        SummaryRow(student="canvas:2", name="Bob", submission="bob.py", status="graded", score=61, max_score=100,
                   wall_s=7.5, errors=2, diagnoses=["timeout"], report="bob"),
        SummaryRow(student="canvas:3", name="Cy", submission="cy.py", status="graded", score=72, max_score=100,
                   wall_s=0.05, diagnoses=["zero_fill_mask"], report="cy"),
        SummaryRow(student="canvas:4", name="Di", status="no_submission"),
        SummaryRow(student="canvas:5", name="Ed", submission="ed.py", status="grader_error"),
    ]
    return ClassSummary(
        submissions=3, mean=77.67, median=72, min=61, max=100, max_score=100, students=5, no_submission=1,
        grader_errors=1,
        checks=[CheckTally(id="mask_structure", title="Causal mask structure", passed=2, failed=1, error=0, skipped=0),
                CheckTally(id="worked_example", title="Worked example", passed=1, failed=1, error=1, skipped=0)],
        misconceptions=[MisconceptionTally(id="zero_fill_mask", title="Fills forbidden scores with 0", count=1,
                                           submissions=["cy.py"], students=["canvas:3"])],
        skipped=[Skipped(path="notes.txt", reason="not a submission")], rows=rows,
        similar=[SimilarPair(students=["canvas:1", "canvas:3"], similarity=1.0, identical=True)],
    )


class _Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.links, self.scripts, self.images = set(), [], 0, []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "a":
            self.links.append(attrs["href"])
        if tag == "script":
            self.scripts += 1
        if tag == "img":
            self.images.append(attrs["src"])


def test_html_has_every_part_and_no_markup_from_students():
    html = render_summary_html(summary())
    page = _Page()
    page.feed(html)
    assert {"totals", "histogram", "checks", "misconceptions", "slowest", "failing", "similar", "students",
            "skipped"} <= page.ids
    assert page.scripts == 0 and "Ada &lt;script&gt;" in html
    assert page.images and page.images[0].startswith("data:image/png;base64,")
    assert {"reports/ada.json", "feedback/ada.md", "reports/bob.json", "reports/cy.json"} <= set(page.links)
    slowest = html[html.index('id="slowest"'):html.index('id="failing"')]
    assert slowest.index("Bob") < slowest.index("Cy")  # 7.5 s first
    failing = html[html.index('id="failing"'):html.index('id="similar"')]
    assert "Bob" in failing and "Ed" in failing and "Cy" not in failing
    assert re.search(r"Causal mask structure.*?67%", html, re.S)
    assert "identical" in html and "no score changes" in html


def test_markdown_summary_has_the_same_sections():
    md = render_summary_markdown(summary())
    for heading in ("## Pass rate per check", "## Misconceptions", "## Slowest submissions", "## Failing submissions",
                    "## Similar submissions", "## Every student"):
        assert heading in md
    assert "| Causal mask structure | 2 | 1 | 0 | 0 | 67% |" in md
    assert "[report](reports/bob.json)" in md and "<script>" not in md
    assert "Fills forbidden scores with 0** (zero\\_fill\\_mask): 1: Cy" in md  # a name, not the key canvas:3
    assert ">Cy</td>" in render_summary_html(summary())


def test_empty_class_still_renders(tmp_path):
    empty = ClassSummary(submissions=0, mean=0, median=0, min=0, max=0, max_score=0, checks=[], misconceptions=[])
    paths = write_summary(tmp_path, empty)
    assert [p.name for p in paths] == ["summary.html", "summary.md"] and all(p.read_text() for p in paths)


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed (apt-get install -y chromium)")
def test_summary_renders_in_headless_chromium(tmp_path):
    [html, _] = write_summary(tmp_path, summary())
    with tempfile.TemporaryDirectory(prefix="grader-chromium-") as profile:
        done = subprocess.run(
            [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", "--disable-component-update", "--disable-sync", f"--user-data-dir={profile}",
             "--run-all-compositor-stages-before-draw", "--virtual-time-budget=10000", "--dump-dom", html.as_uri()],
            capture_output=True, text=True, timeout=120)
    dom = done.stdout
    assert 'id="histogram"' in dom and 'id="students"' in dom, done.stderr[-2000:]
    assert "Ada <script>" not in dom and "alert(1)" in dom  # shown as text, never run


def test_scores_print_as_the_reports_print_them():
    s = summary()
    s.rows[2].score, s.min = 70.947917, 61.0049
    md, html = render_summary_markdown(s), render_summary_html(s)
    assert "| 70.95 / 100 |" in md and "range 61 to 100 (of 100)" in md
    assert "70.95 / 100" in html and "range 61 to 100 (of 100)" in html
    assert "70.9479" not in md + html and "61.0049" not in md + html
