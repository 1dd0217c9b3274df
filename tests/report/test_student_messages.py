"""What a student reads: scores as people write them, one quiet line about isolation."""

from __future__ import annotations

from grader.report.view import isolation_text, points_text


def test_scores_read_like_scores():
    assert points_text(27.1667, 86) == "27.17 / 86"
    assert points_text(1 / 3, 1) == "0.33 / 1"
    assert points_text(86, 86) == "86 / 86"
    assert points_text(2.5, 11.5) == "2.5 / 11.5"


def test_isolation_is_named_with_what_it_means():
    assert isolation_text("rlimits-only").startswith("rlimits-only (your code ran as you")
    assert isolation_text("something new") == "something new"
