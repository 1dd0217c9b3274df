"""The shared sample reports are valid and match the chapter."""

from __future__ import annotations

from support.reports import failing_report, passing_report

from grader.report.models import Report


def test_samples_are_valid_reports():
    for report in (passing_report(), failing_report()):
        assert Report.model_validate_json(report.model_dump_json()) == report


def test_zero_fill_sample_matches_the_chapter():
    first = failing_report().visuals.worked_example.student[0]
    assert [round(w, 6) for w in first] == [0.333333, 0.333333, 0.333333]
    last = passing_report().visuals.worked_example.expected[2]
    assert [round(w, 6) for w in last] == [0.142857, 0.285714, 0.571429]
