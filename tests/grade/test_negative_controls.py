"""The grader's own mutation score: every correct variant passes, every catalogue entry is caught and named.

Both audiences are exercised: the instructor grades with hidden probes and the catalogue run live
from reference/; the student's self-check has only the visible probes and the shipped fingerprints.
"""

from __future__ import annotations

import pytest
from support.corpora import MUTANTS, REFERENCE, SECRET, TEMPLATE, VARIANTS, mutant_id

from grader.diagnosis import catalogue
from grader.grade import grade_file, self_check

CORRECT = [REFERENCE, *VARIANTS]


@pytest.fixture(scope="module")
def live_catalogue():
    return catalogue.build()


@pytest.mark.parametrize("path", CORRECT, ids=lambda p: p.stem)
def test_correct_implementations_get_full_marks_and_no_diagnosis(path, sandbox, live_catalogue):
    report = grade_file(path, sandbox=sandbox, secret=SECRET, catalogue=live_catalogue)
    failing = [(c.id, c.feedback) for c in report.checks if c.status != "passed"]
    assert failing == [] and report.score == report.max_score == 100
    assert report.diagnoses == []
    student = self_check(path, sandbox=sandbox)
    assert student.score == student.max_score and student.diagnoses == []


@pytest.mark.parametrize("path", MUTANTS, ids=lambda p: p.stem)
def test_every_catalogue_entry_is_caught_and_named(path, sandbox, live_catalogue):
    expected = mutant_id(path)
    report = grade_file(path, sandbox=sandbox, secret=SECRET, catalogue=live_catalogue)
    assert report.score < report.max_score
    assert expected in [d.id for d in report.diagnoses], [d.id for d in report.diagnoses]
    # The student's self-check names it too, from shipped numbers alone.
    student = self_check(path, sandbox=sandbox)
    assert student.score < student.max_score
    assert expected in [d.id for d in student.diagnoses], [d.id for d in student.diagnoses]


def test_diagnosis_quotes_the_students_numbers(sandbox):
    report = grade_file(MUTANTS[[mutant_id(p) for p in MUTANTS].index("zero_fill_mask")], sandbox=sandbox,
                        secret=SECRET)
    top = report.diagnoses[0]
    assert top.id == "zero_fill_mask"
    assert "[0.333333, 0.333333, 0.333333]" in top.message and "exp(0) = 1" in top.message
    assert top.section == "Hide future positions before normalization"


def test_untouched_template_says_nothing_is_implemented(sandbox):
    report = self_check(TEMPLATE, sandbox=sandbox)
    assert [d.id for d in report.diagnoses] == ["not_implemented"]
    assert "Nothing is implemented yet" in report.diagnoses[0].message
    assert report.score == 0


def test_a_scale_nobody_catalogued_is_still_named(sandbox, tmp_path):
    source = REFERENCE.read_text().replace("math.sqrt(q.shape[-1])", "(3.0 * q.shape[-1])")
    assert source != REFERENCE.read_text()
    path = tmp_path / "attention.py"
    path.write_text(source)
    report = grade_file(path, sandbox=sandbox, secret=SECRET)
    scale = [d for d in report.diagnoses if d.id == "wrong_scale"]
    assert scale and "a factor of" in scale[0].message


def _mutated(name: str, old: str, new: str, tmp_path):
    source = next(p for p in MUTANTS if mutant_id(p) == name).read_text()
    assert old in source
    path = tmp_path / f"{name}_twice.py"
    path.write_text(source.replace(old, new))
    return path


@pytest.mark.parametrize(("name", "old", "new", "second"), [
    ("zero_fill_mask", "/ math.sqrt(q.shape[-1])", "/ 1.0", "missing_scale"),
    ("mask_after_softmax", "/ math.sqrt(q.shape[-1])", "/ 1.0", "missing_scale"),
    ("zero_fill_mask", "dim=-1)", "dim=-2)", "softmax_wrong_axis"),
])
def test_two_bugs_at_once_are_both_named(name, old, new, second, sandbox, tmp_path):
    """No catalogue entry carries two bugs: these are named from the weights' structure and implied scale."""
    report = grade_file(_mutated(name, old, new, tmp_path), sandbox=sandbox, secret=SECRET)
    assert {name, second} <= {d.id for d in report.diagnoses}, [d.id for d in report.diagnoses]
