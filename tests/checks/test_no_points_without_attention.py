"""No points without attention. Canned answers for every public probe, and NaN
everywhere, score at most what the untouched stub scores (plus the gate's floor, which is nothing);
NaN and inf are never "no change" (the leak check) and never "weights that respond" (the gate)."""

from __future__ import annotations

import pytest
from support.canned import canned_source

from grader.paths import ROOT

GALLERY = ROOT / "tests" / "gallery"
SEED = 7  # the secret's draw: hidden probes are part of the grade


def _stub(grade) -> float:
    return grade((ROOT / "student_template" / "attention.py").read_text(), seed=SEED).score


@pytest.mark.parametrize("name", ["canned_answers", "canned_causal_mean"])
def test_canned_answers_for_every_public_probe_score_what_the_stub_scores(grade, name):
    canned = canned_source(name)
    without_secret = grade(canned)  # negative control: on public probes alone the table is right
    assert without_secret.outcomes["worked_example"].status == "passed" and without_secret.score > 50
    graded = grade(canned, seed=SEED)
    assert graded.score <= _stub(grade), {c: o.score for c, o in graded.outcomes.items() if o.score}
    assert graded.outcomes["computes_attention"].status == "failed"
    assert "grader draws from its secret" in graded.outcomes["computes_attention"].feedback


@pytest.mark.parametrize("name", ["nan_everywhere", "inf_everywhere"])
def test_nan_everywhere_scores_what_the_stub_scores(grade, name):
    graded = grade((GALLERY / f"{name}.py").read_text(), seed=SEED)
    assert graded.score <= _stub(grade)
    assert graded.outcomes["computes_attention"].status == "failed"
    assert graded.outcomes["leak_intervention"].status != "passed"


def test_nan_outputs_are_never_no_change(grade, head_source):
    """Weights right (the gate passes), every output NaN: the leak check cannot see the future stay out."""
    graded = grade(head_source(RETURN="out * float('nan'), weights"), seed=SEED)
    assert graded.outcomes["computes_attention"].status == "passed"
    leak = graded.outcomes["leak_intervention"]
    assert leak.status == "failed" and "NaN or inf" in leak.feedback


def test_nan_or_inf_weights_are_never_weights_that_respond(grade, head_source):
    for weights in ("weights * float('inf')", "weights * float('nan')"):
        graded = grade(head_source(RETURN=f"out, {weights}"), seed=SEED)
        assert graded.outcomes["computes_attention"].status == "failed", weights


def test_a_correct_head_is_not_taken_for_canned_answers(grade, head_source):
    graded = grade(head_source(), seed=SEED)
    assert graded.outcomes["computes_attention"].status == "passed" and graded.score == 100


def test_calls_the_sandbox_stopped_are_not_taken_for_wrong_answers(grade, head_source):
    """A correct but slow file whose secret-seeded calls ran out of budget is not canned; the same
    calls answered with wrong values are (the negative control)."""
    import torch

    from grader.checks.observations import Reply

    obs = grade(head_source(), seed=SEED).obs
    hidden = [p for p in obs.probes.family("rand") if p.hidden]
    assert hidden and obs.answers_only_public() is None
    for p in hidden:
        obs.replies[p.id] = Reply(False, error_type="timeout", error="stopped at its limit")
    obs._memo.clear()
    assert obs.answers_only_public() is None
    for p in hidden:
        T = p.t["q"].shape[-2]
        obs.replies[p.id] = Reply(True, {"out": p.t["v"].clone(),
                                         "weights": torch.full((*p.t["q"].shape[:-1], T), 1 / T, dtype=torch.float64)})
    obs._memo.clear()
    assert obs.answers_only_public() is not None
