"""One rubric, two views: the student's self-check is derived from the instructor rubric, never kept by hand."""

from __future__ import annotations

import subprocess
import sys

import pytest

from grader.paths import INSTRUCTOR_RUBRIC
from grader.rubric import dump_rubric, load_rubric, load_self_check, parse_rubric

TEXT = INSTRUCTOR_RUBRIC.read_text()


def _edit(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


def test_the_self_check_is_the_student_view_of_the_shipped_rubric():
    instructor = load_rubric(INSTRUCTOR_RUBRIC)
    assert load_self_check() == instructor.student_view()
    assert {c.visibility for c in load_self_check().checks} == {"visible"}
    assert load_self_check().max_score == sum(c.points for c in instructor.checks if c.visibility == "visible")


def test_editing_the_instructor_rubric_changes_the_self_check():
    text = _edit(TEXT, "  - id: worked_example\n    points: 15\n", "  - id: worked_example\n    points: 20\n")
    text = _edit(text, "  - id: zero_queries\n    points: 5\n    partial_credit: fraction\n    visibility: visible\n",
                 "  - id: zero_queries\n    points: 5\n    partial_credit: fraction\n    visibility: hidden\n")
    text = _edit(text, "    visibility: after_due_date\n", "    visibility: visible\n")
    view = parse_rubric(text).student_view()
    assert view.check("worked_example").points == 20
    assert "zero_queries" not in view.check_ids
    assert "sdpa_parity" in view.check_ids and "random_probes" not in view.check_ids
    shipped = load_self_check()
    assert shipped.check("worked_example").points == 15 and "zero_queries" in shipped.check_ids


def test_a_hidden_prerequisite_is_dropped_from_the_student_view():
    text = _edit(TEXT, "  - id: zero_queries\n    points: 5\n",
                 "  - id: zero_queries\n    points: 5\n    requires: [worked_example, random_probes]\n")
    instructor = parse_rubric(text)
    assert instructor.check("zero_queries").requires == ["worked_example", "random_probes"]
    assert instructor.student_view().check("zero_queries").requires == ["worked_example"]


def test_dumped_view_reads_back_equal():
    view = load_rubric(INSTRUCTOR_RUBRIC).student_view()
    text = dump_rubric(view, header="Generated.\n\nNever edited.")
    assert text.startswith("# Generated.\n#\n# Never edited.\n")
    assert parse_rubric(text) == view


def test_a_rubric_with_nothing_visible_has_no_self_check(tmp_path):
    text = TEXT.replace("visibility: visible", "visibility: hidden")
    with pytest.raises(ValueError, match="no visible check"):
        parse_rubric(text).student_view()
    path = tmp_path / "all_hidden.yaml"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "grader", "rubric", "student-view", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "no visible check" in proc.stderr and "Traceback" not in proc.stderr


def test_student_view_command_prints_the_derived_yaml(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text(_edit(TEXT, "  - id: worked_example\n    points: 15\n", "  - id: worked_example\n    points: 21\n"))
    proc = subprocess.run([sys.executable, "-m", "grader", "rubric", "student-view", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert parse_rubric(proc.stdout) == load_rubric(path).student_view()
