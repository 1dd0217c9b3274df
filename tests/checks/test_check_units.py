"""Each check on small hand-written heads: what it catches, what it passes, what it says.

Each class of wrong verdict found so far has a test here that failed before its fix: precision read as a
failure of every value check, relational checks that compared with the chapter instead of the
submission itself, probe holes, a check that could not run describing another bug, and points for
code that computes no attention.
"""

from __future__ import annotations

import re

import pytest


def failing(g) -> set[str]:
    return {cid for cid, o in g.outcomes.items() if o.status != "passed"}


def test_a_correct_head_passes_every_check(grade, head_source):
    g = grade(head_source())
    assert failing(g) == set() and g.score == 100


# --- Class 1: precision is one finding, not a failure of every value check --------------------
def test_float32_softmax_cast_back_is_one_precision_finding(grade, head_source):
    g = grade(head_source(SOFTMAX="torch.softmax(scores.float(), dim=-1).type_as(q)"))
    assert failing(g) == {"precision"}
    text = g.outcomes["precision"].feedback
    assert "float32" in text and "e-" in text  # names the measured error
    assert 95 <= g.score < 100


@pytest.mark.parametrize("scores", ["(q @ k.transpose(-2, -1)) / q.shape[-1]", "q @ k.transpose(-2, -1)"])
def test_a_wrong_scale_is_not_also_lost_precision(grade, head_source, scores):
    """Found by a user: code with a wrong scale, all in float64, came within 1e-11 on the hidden probes
    where softmax saturates, and some files (by their hidden seed) lost the precision points too."""
    for seed in range(6):
        g = grade(head_source(SCORES=scores), seed=seed)
        assert g.outcomes["precision"].status == "passed", (seed, g.outcomes["precision"].feedback)
        assert "random_probes" in failing(g)  # the scale itself is still charged


def test_a_float16_result_is_judged_not_crashed(grade, head_source):
    g = grade(head_source(RETURN="out.half(), weights.half()"))
    assert all("malformed" not in o.feedback for o in g.outcomes.values())
    assert "float16" in g.outcomes["precision"].feedback


# --- Class 2: relational checks compare the submission with itself -----------------------------
@pytest.mark.parametrize("scores", ["(q @ k.transpose(-2, -1)) / q.shape[-1]", "q @ k.transpose(-2, -1)"])
def test_a_wrong_scale_is_charged_by_the_value_checks_only(grade, head_source, scores):
    g = grade(head_source(SCORES=scores))
    assert {"shift_invariance", "gradient_flow", "single_head_gradients", "value_intervention",
            "leak_intervention", "mask_structure"}.isdisjoint(failing(g))
    assert {"random_probes", "worked_example"} <= failing(g)


@pytest.mark.parametrize("scores", ["(q @ k.transpose(-2, -1)) / q.shape[-1]",
                                    "(q @ k.transpose(-2, -1)) / math.sqrt(v.shape[-1])"])
def test_a_head_wired_right_is_not_charged_for_its_attention(grade, head_source, scores):
    """Found by a user: a correct SingleHead lost its points (and was told about three Linear layers)
    whenever causal_attention was wrong. Where random_probes scores causal_attention's values, the
    head is judged by how it composes its own causal_attention."""
    g = grade(head_source(SCORES=scores))
    assert "random_probes" in failing(g) and "single_head" not in failing(g)


@pytest.mark.parametrize("edit", [
    ("return causal_attention(self.query(x), self.key(x), self.value(x))",
     "return causal_attention(self.key(x), self.query(x), self.value(x))"),  # queries and keys swapped
    ("return causal_attention(self.query(x), self.key(x), self.value(x))",
     "return causal_attention(self.query(x), self.key(x), self.value(x) * 2)"),
])
def test_a_head_wired_wrong_still_fails_with_attention_wrong_or_right(grade, head_source, edit):
    for scores in ("(q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])", "(q @ k.transpose(-2, -1)) / q.shape[-1]"):
        g = grade(head_source(SCORES=scores).replace(*edit))
        assert "single_head" in failing(g), scores
        assert "your own causal_attention" not in g.outcomes["single_head"].feedback


def test_a_head_with_its_own_right_attention_passes_beside_a_wrong_function(grade, head_source):
    """Written without calling causal_attention (and right): its values match the reference."""
    own = ("q, k, v = self.query(x), self.key(x), self.value(x)\n"
           "        T = x.shape[-2]\n"
           "        s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])\n"
           "        s = s.masked_fill(torch.ones(T, T, dtype=torch.bool).tril().logical_not(), float('-inf'))\n"
           "        w = torch.softmax(s, dim=-1)\n"
           "        return w @ v, w")
    src = head_source(SCORES="q @ k.transpose(-2, -1)").replace(
        "return causal_attention(self.query(x), self.key(x), self.value(x))", own)
    g = grade(src)
    assert "random_probes" in failing(g) and "single_head" not in failing(g)


@pytest.mark.parametrize("ret, slip", [("weights, out", "(weights, out)"), ("[out, weights]", "a list"),
                                       ("out[None], weights[None]", "leading dimensions")])
def test_a_readable_interface_slip_is_deducted_once(grade, head_source, ret, slip):
    g = grade(head_source(RETURN=ret))
    assert failing(g) == {"return_contract"}, {c: g.outcomes[c].feedback for c in failing(g)}
    assert slip in g.outcomes["return_contract"].feedback
    assert g.score >= 90


def test_a_partial_single_head_still_gets_its_gradients_measured(grade, head_source):
    src = head_source().replace("self.value = nn.Linear(n_embd, d_v or d_k, bias=False)",
                                "self.value = nn.Linear(n_embd, d_v or d_k, bias=True)")
    g = grade(src)
    assert "single_head" in failing(g) and "single_head_gradients" not in failing(g)


def test_detached_denominator_fails_own_finite_differences(grade, head_source):
    g = grade(head_source(SOFTMAX="scores.exp() / scores.exp().sum(-1, keepdim=True).detach()"))
    assert g.outcomes["gradient_flow"].status == "failed"
    assert "finite" in g.outcomes["gradient_flow"].feedback or "rate" in g.outcomes["gradient_flow"].feedback


# --- Class 4: probe holes ------------------------------------------------------------------------
def test_nan_in_outputs_does_not_disable_the_leak_check(grade, head_source):
    g = grade(head_source(MASK="torch.ones(T, T, dtype=torch.bool)",
                          RETURN="torch.cat([out[..., :-1, :], out[..., -1:, :] * float('nan')], -2), weights"))
    assert g.outcomes["leak_intervention"].status == "failed"


@pytest.mark.parametrize("softmax", ["torch.softmax(scores, dim=-2)",
                                     "torch.softmax(scores, dim=1) if scores.dim() == 3 else torch.softmax(scores, -1)"])
def test_softmax_over_receivers_leaks_through_future_queries(grade, head_source, softmax):
    g = grade(head_source(SOFTMAX=softmax))
    leak = g.outcomes["leak_intervention"]
    assert leak.status == "failed" and "queries" in leak.feedback
    assert g.score <= 50


def test_v_mismatched_alone_and_one_dim_inputs_must_raise(grade, head_source):
    checks = '''if q.shape[:-1] != k.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"mismatch: q {tuple(q.shape)}, k {tuple(k.shape)}")'''
    g = grade(head_source(CHECKS=checks))
    feedback = g.outcomes["shape_validation"].feedback
    assert g.outcomes["shape_validation"].status == "failed" and "v (" in feedback


def test_a_valueerror_subclass_counts_and_the_message_must_name_shapes(grade, head_source):
    checks = '''class ShapeError(ValueError):
        pass
    if q.dim() < 2 or q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ShapeError(f"bad shapes q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")'''
    assert grade(head_source(CHECKS=checks)).outcomes["shape_validation"].status == "passed"
    vague = checks.replace('f"bad shapes q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"', '"bad"')
    g = grade(head_source(CHECKS=vague))
    assert g.outcomes["shape_validation"].status == "failed" and "name the shapes" in g.outcomes[
        "shape_validation"].feedback


def test_a_mask_hard_coded_for_three_positions_fails_in_the_visible_set(grade, head_source):
    g = grade(head_source(MASK="torch.ones(3, 3, dtype=torch.bool).tril()"))
    visible = {c for c in failing(g) if g.reports[c].visibility == "visible"}
    assert {"leak_intervention", "gradient_flow", "shift_invariance"} <= visible


def test_view_on_inputs_is_caught_by_the_multi_head_layout(grade, head_source):
    g = grade(head_source(SCORES="(q.view(-1, *q.shape[-2:]) @ k.reshape(-1, *k.shape[-2:]).transpose(-2, -1))"
                                 ".reshape(*q.shape[:-1], T) / math.sqrt(q.shape[-1])"))
    assert g.outcomes["random_probes"].status == "error"
    assert "strided" in g.outcomes["random_probes"].feedback


def test_a_finite_fill_above_the_allowed_scores_fails_at_the_edge(grade, head_source):
    src = head_source().replace('scores.masked_fill(~allowed, float("-inf"))', "scores.masked_fill(~allowed, -100.0)")
    g = grade(src)
    assert g.outcomes["shift_invariance"].status == "failed" and "-1000" in g.outcomes["shift_invariance"].feedback
    big = head_source().replace('scores.masked_fill(~allowed, float("-inf"))', "scores.masked_fill(~allowed, -1e9)")
    assert failing(grade(big)) == set()


@pytest.mark.parametrize("mask", ["torch.ones(3, 3, dtype=torch.bool).tril()", "torch.ones(T, T, dtype=torch.bool)"])
def test_no_grade_depends_on_the_secrets_draw(grade, head_source, mask):
    with_secret = [grade(head_source(MASK=mask), seed=seed).score for seed in (11, 12, 13)]
    assert max(with_secret) - min(with_secret) < 1.0, with_secret


@pytest.mark.parametrize("scores", ["(q @ k.transpose(-2, -1)) / q.shape[-1]", "q @ k.transpose(-2, -1)"])
def test_the_same_mistake_scores_the_same_whatever_the_draw(grade, head_source, scores):
    """Found in a class run: files with one mistake differed by up to 0.56 points, because a wrong
    scale lands within tolerance on some seeded draws (softmax saturates). Credit counts kinds of
    probe, each passed only on every draw of it, so the secret's draw cannot move a grade."""
    outcomes = [grade(head_source(SCORES=scores), seed=seed) for seed in range(11, 17)]
    assert len({g.score for g in outcomes}) == 1, [g.score for g in outcomes]
    assert len({(g.outcomes["random_probes"].cases_passed, g.outcomes["random_probes"].cases_total)
                for g in outcomes}) == 1


def test_kinds_keep_partial_credit_for_the_layouts_a_file_handles(grade, head_source):
    """Crashing on unbatched inputs loses the flat kinds, not the batched ones."""
    g = grade(head_source(CHECKS="if q.dim() < 3:\n        raise RuntimeError('batched only')"))
    o = g.outcomes["random_probes"]
    assert o.status == "error" and 0 < o.cases_passed < o.cases_total


def test_an_overflowing_softmax_is_the_stability_checks_finding_not_the_masks(grade, head_source):
    """Found by a user: exp overflowing at scores near 1000 (inf / inf) was told "softmax over a row
    with no finite score divides 0 by 0" by the mask check. A NaN row counts there only on scores far
    too small to overflow; a masked diagonal's empty row still does."""
    naive = grade(head_source(SOFTMAX="torch.exp(scores) / torch.exp(scores).sum(-1, keepdim=True)"))
    assert naive.outcomes["mask_structure"].status == "passed"
    assert {"shift_invariance", "random_probes"} <= failing(naive)
    nodiag = grade(head_source(MASK="torch.ones(T, T, dtype=torch.bool).tril(-1)"))
    mask = nodiag.outcomes["mask_structure"]
    assert mask.status == "failed" and "NaN" in mask.feedback and mask.findings == ("nan",)


# --- Class 6: a check that could not run says so, never describes another bug --------------------
def test_a_crashing_call_is_reported_as_the_call_that_raised(grade, head_source):
    g = grade(head_source(SCORES="(q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1]) if T == 3 else 1 / 0"))
    text = g.outcomes["random_probes"].feedback
    assert "ZeroDivisionError" in text and "q (" in text and "Could not run" in text
    assert "in place" not in g.outcomes["inputs_unchanged"].feedback


def test_a_check_whose_cases_partly_ran_says_how_many_could_not(grade, head_source):
    """Found on a walk: SingleHead without d_v's default crashed only where d_v was left out; the check
    kept 5.4 of its 6 points for the cases that ran, yet said "Could not run this check"."""
    g = grade(head_source().replace("d_v or d_k", "d_v"))
    head = g.outcomes["single_head"]
    assert head.status == "error" and 0 < head.cases_passed < head.cases_total
    assert "Could not run this check" not in head.feedback, head.feedback
    said = re.match(r"Could not run (\d+) of this check's (\d+) cases", head.feedback)
    assert said and int(said[2]) == head.cases_total and 0 < int(said[1]) <= head.cases_total - head.cases_passed
    assert "TypeError" in head.feedback
    stub = grade(head_source(SCORES="1 / 0"))  # every case raised: the check itself could not run
    assert stub.outcomes["random_probes"].feedback.startswith("Could not run this check: ")


# --- Class 7: points without attention ------------------------------------------------------------
@pytest.mark.parametrize("ret", [
    "v, torch.eye(T, dtype=v.dtype).expand(*q.shape[:-1], T)",
    "(torch.tensor([[2.0, 0], [2 / 3, 8 / 3], [26 / 7, 16 / 7]], dtype=q.dtype), "
    "torch.tensor([[1.0, 0, 0], [1 / 3, 2 / 3, 0], [1 / 7, 2 / 7, 4 / 7]], dtype=q.dtype)) if T == 3 and "
    "q.dim() == 2 else (v, torch.eye(T, dtype=v.dtype).expand(*q.shape[:-1], T))",
])
def test_no_property_points_without_attention(grade, head_source, ret):
    g = grade(head_source(RETURN=ret))
    props = ["shift_invariance", "inputs_unchanged", "gradient_flow", "shape_validation", "return_contract",
             "leak_intervention", "mask_structure", "value_intervention", "single_head_gradients", "precision"]
    for cid in props:
        assert g.reports[cid].score == 0, cid
    assert g.outcomes["computes_attention"].status == "failed"
    assert g.score <= 27


def test_nan_rows_are_named_as_nan_not_as_a_future_share(grade, head_source):
    """Found by a user: with the diagonal masked, row 0 is 0/0. The messages said a future source took
    a share, that a value change changed the weights, and that a shift changed the output by inf."""
    g = grade(head_source(MASK="torch.ones(T, T, dtype=torch.bool, device=q.device).tril(-1)"))
    mask = g.outcomes["mask_structure"]
    assert mask.status == "failed" and "NaN" in mask.feedback and "future source" not in mask.feedback
    assert g.outcomes["value_intervention"].status == "passed"  # the rows with a weight follow the value
    shift = g.outcomes["shift_invariance"]
    assert "already contains NaN" in shift.feedback and "by up to inf" not in shift.feedback
    g = grade(head_source(MASK="torch.ones(T, T, dtype=torch.bool, device=q.device).triu()"))  # control
    assert "future source" in g.outcomes["mask_structure"].feedback


@pytest.mark.parametrize(("scores", "times"), [("q @ k.transpose(-2, -1)", "1.41421"),
                                               ("(q @ k.transpose(-2, -1)) / q.shape[-1]", "0.707107")])
def test_the_worked_example_reads_a_scale_from_its_own_final_row(grade, head_source, scores, times):
    """Found by a user: a missing scale got the worked example's hint about the softmax axis. Its
    final row is the softmax of a multiple of the chapter's scores: that is the finding, and its hints."""
    o = grade(head_source(SCORES=scores)).outcomes["worked_example"]
    assert o.finding == "scale" and f"softmax of {times} times the chapter's scores" in o.feedback


def test_a_wrong_axis_is_not_read_as_a_scale(grade, head_source):
    o = grade(head_source(SOFTMAX="torch.softmax(scores, dim=-2)")).outcomes["worked_example"]
    assert o.finding == "weights" and "times the chapter's scores" not in o.feedback


def test_a_mask_built_once_at_a_tutorials_block_size_is_found(grade, head_source):
    """Found by a user: a lower-triangle buffer built once at a tutorial's block size of 8 and sliced to
    [:T, :T] (the style of Karpathy's GPT lecture code) scored 100 with no diagnosis: no probe was longer
    than 8. A long probe (T = 40) in each set finds it."""
    src = head_source(MASK="torch.ones(16, 16, dtype=torch.bool).tril()[:T, :T]")
    g = grade(src)
    assert "mask_structure" in failing(g) and "T = 40" not in g.outcomes["worked_example"].feedback
    assert "(40, " in g.outcomes["mask_structure"].feedback
    assert failing(grade(head_source())) == set()  # the same code sized from T passes
    # A crash on lengths the contract allows is wrong math (the rubric names `crash` for the value
    # checks' band), not the few cases it costs: at most 75, and no leak band.
    assert 50 < g.score <= 75


def test_a_projection_of_the_wrong_width_is_told_its_shape_not_the_graders_crash(grade, head_source):
    """Found by a user: `self.value = nn.Linear(n_embd, n_embd)` read 'raised RuntimeError: The size of
    tensor a (6) must match the size of tensor b (2)', an error from the grader's own weight copy."""
    src = head_source().replace("self.value = nn.Linear(n_embd, d_v or d_k, bias=False)",
                                "self.value = nn.Linear(n_embd, n_embd, bias=False)")
    text = grade(src).outcomes["single_head"].feedback
    assert "SingleHead.value.weight has shape (6, 6)" in text and "(2, 6)" in text
    assert "must match the size of tensor" not in text


def test_transposed_scores_are_not_read_as_a_scale(grade, head_source):
    """Found by a user: k @ q^T gives uniform rows on the worked example, read as 'softmax of 0 times the
    chapter's scores: its scores are scaled differently'."""
    o = grade(head_source(SCORES="(k @ q.transpose(-2, -1)) / math.sqrt(q.shape[-1])")).outcomes["worked_example"]
    assert o.finding == "weights" and "times the chapter's scores" not in o.feedback
