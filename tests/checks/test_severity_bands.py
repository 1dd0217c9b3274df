"""Scores follow severity (rubrics/causal_attention.yaml states the bands): catalogue mutants and
correct variants graded in-process (trusted code) with the instructor rubric and a secret."""

from __future__ import annotations

import pytest

from grader.paths import ROOT

MUTANTS = ROOT / "reference" / "mutants"
LEAKS = ["no_mask", "zero_fill_mask", "mask_after_softmax", "wrong_mask_direction", "future_offset",
         "batch_mixing", "softmax_wrong_axis"]
# Masking the diagonal hides the present and takes nothing from the future: its NaN first row is
# wrong math, not a leak (it was listed as a leak until a user read the rubric's own band and asked).
WRONG_MATH = ["missing_scale", "wrong_scale", "hard_attention", "hardcoded_shape", "diagonal_excluded",
              "unstable_softmax"]


def _grade(grade, name: str, seed: int = 7):
    return grade((MUTANTS / f"{name}.py").read_text(encoding="utf-8"), seed=seed)


@pytest.mark.parametrize("name", LEAKS)
def test_a_leak_or_batch_mixing_scores_at_most_half(grade, name):
    assert _grade(grade, name).score <= 50


@pytest.mark.parametrize("name", WRONG_MATH)
def test_wrong_math_without_a_leak_is_well_below_full(grade, name):
    assert _grade(grade, name).score <= 75


def test_precision_only_loses_at_most_five(grade):
    assert 95 <= _grade(grade, "dtype_downcast").score < 100


@pytest.mark.parametrize("name", ["swapped_return", "no_shape_validation", "inputs_mutated"])
def test_an_interface_slip_loses_at_most_ten(grade, name):
    assert 90 <= _grade(grade, name).score < 100


def test_the_untouched_stub_scores_zero(grade):
    assert grade((ROOT / "student_template" / "attention.py").read_text(encoding="utf-8"), seed=7).score == 0


@pytest.mark.parametrize("name", ["hardcoded_shape", "wrong_scale", "softmax_wrong_axis", "zero_fill_mask"])
def test_no_grade_depends_on_the_secrets_draw(grade, name):
    scores = [_grade(grade, name, seed).score for seed in (101, 202, 303)]
    assert max(scores) - min(scores) < 1.0, scores


@pytest.mark.parametrize("name", ["diagonal_excluded", "unstable_softmax"])
def test_a_nan_that_is_not_a_leak_sets_no_leak_band(grade, name):
    """Found by a user: NaN rows (a masked diagonal's 0/0, an overflowing softmax's inf/inf) failed
    the mask check and capped the total at 50, the band for a leak neither file has."""
    g = _grade(grade, name)
    assert g.outcomes["leak_intervention"].status == "passed"
    assert g.reports["mask_structure"].ceiling is None and g.score > 50
