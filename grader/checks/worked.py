"""The chapter's worked example, its zero-query baseline and the value-only intervention."""

from __future__ import annotations

import math

import torch

from grader.checks.base import BASELINE, DELIVER, CheckOutcome, check
from grader.checks.observations import Cases, Observations, TolFn, band_for, close, first_bad_row, fmt
from grader.probes import (
    LN2,
    LN4,
    VALUE_BUMP,
    WORKED,
    WORKED_OUT,
    WORKED_VALUE_BUMP,
    WORKED_WEIGHTS,
    WORKED_ZERO_Q,
    ZERO_Q_OUT,
    ZERO_Q_WEIGHTS,
)

# What the chapter says about each receiving position of the worked example.
WORKED_ROWS = (
    "The first position can use only itself: weights [1, 0, 0], output [2, 0].",
    "At the middle position the last source is forbidden, so exponentials [1, 2] become [1/3, 2/3, 0].",
    "The final row's scores are [0, ln 2, ln 4]; exponentials [1, 2, 4] give shares 1/7, 2/7, 4/7, "
    "and the output (1/7)[2,0] + (2/7)[0,4] + (4/7)[6,2] = [26/7, 16/7].",
)


def scaled_by(weights: torch.Tensor) -> float | None:
    """How many times the chapter's scores the final row's weights are the softmax of, when they are
    one (its log-shares rise as c x [0, ln 2, ln 4]); None when they are not shares of scaled scores."""
    w = weights.detach().double() if weights.shape == (3, 3) else None
    if w is None or not bool((w[1:, :2] > 0).all() and (w[2] > 0).all()) or not bool(torch.isfinite(w).all()):
        return None
    c1, c2 = float(w[2, 1].log() - w[2, 0].log()) / LN2, float(w[2, 2].log() - w[2, 0].log()) / LN4
    middle = float(w[1, 1].log() - w[1, 0].log()) / LN2  # the middle row rises by the same c over [0, ln 2]
    same = all(abs(c - c1) <= 1e-6 * max(1.0, abs(c1)) for c in (c2, middle))
    # Uniform or reversed shares (c <= 0) are not scaled scores: transposed ones, say.
    return c1 if same and c1 > 1e-3 else None


# The worked example's sizes: T = 3, d_k = d_v = 2, so its scores [0, ln 2, ln 4] are q.k / sqrt(2).
SQRT_DK = math.sqrt(2)
# Scales a student may have written, as they read on the worked example.
_WORKED_SCALES = ((1.0, "no scaling at all"), (0.5, "1/d_k, or 1/d_v: both are 2 here"),
                  (1 / math.sqrt(3), "1/sqrt(T), with T = 3"), (1 / 3, "1/T"),
                  (math.sqrt(2), "sqrt(d_k), multiplying instead of dividing"), (2.0, "d_k, multiplying"))


def _scale_name(s: float) -> str:
    name = next((n for v, n in _WORKED_SCALES if abs(s - v) <= 1e-6 * v), None)
    return f" ({name})" if name else ""


def _compare(cases: Cases, reply, name: str, expected: torch.Tensor, tol, story) -> None:
    actual = reply.tensors.get(name)
    if actual is None or actual.shape != expected.shape:
        shape = None if actual is None else tuple(actual.shape)
        cases.fail(f"{name} should have shape {tuple(expected.shape)}, got {shape}.", fmt(expected), fmt(actual),
                   aspect=name)
        return
    band = band_for("float64")  # float32 arithmetic inside is the precision check's finding alone
    if close(actual, expected, tol, band):
        cases.ok()
        return
    row = first_bad_row(actual, expected, band)
    row = 0 if row is None else row
    times = scaled_by(actual) if name == "weights" and story is WORKED_ROWS else None
    if times is not None and abs(times - 1) <= 1e-6:
        times = None  # the right scale: the rows differ for another reason (the mask, the shares)
    scaled = "" if times is None else (
        f" Your final row is exactly the softmax of {times:.6g} times the chapter's scores [0, ln 2, ln 4]: your "
        f"scale there is {times / SQRT_DK:.6g}{_scale_name(times / SQRT_DK)} where the chapter's is "
        f"1/sqrt(d_k) = {1 / SQRT_DK:.6g}.")
    cases.fail(
        f"Receiving position {row}: expected {name} {fmt(expected[row])}, got {fmt(actual[row])}. {story[row]}"
        + scaled,
        fmt(expected[row]),
        fmt(actual[row]),
        aspect="scale" if times is not None else name,
    )


@check("worked_example", title="Worked example", group="Worked example", section=DELIVER,
       proves="The chapter's three-position example gives weights [1,0,0], [1/3,2/3,0], "
              "[1/7,2/7,4/7] and outputs [2,0], [2/3,8/3], [26/7,16/7].",
       findings=("weights", "scale", "out"),
       passed="Weights [1/7, 2/7, 4/7] at the final position and output [3.714286, 2.285714]: a "
              "blend, not the winning value.")
def worked_example(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases, reply = Cases(), obs.reply(WORKED)
    if not reply.ok:
        cases.error(reply, "causal_attention on the worked example", obs.probes.worked)
        return cases.outcome()
    t = tol("float64")
    _compare(cases, reply, "weights", WORKED_WEIGHTS, t, WORKED_ROWS)
    _compare(cases, reply, "out", WORKED_OUT, t, WORKED_ROWS)
    return cases.outcome()


@check("zero_queries", title="Zero queries give plain averages", group="Worked example", section=BASELINE,
       proves="With every query zero, each receiver averages the values it is allowed to see "
              "([2.666667, 2.0] at the end).",
       findings=("weights", "out"),
       passed="Zero queries give plain averages of the allowed values: [2.666667, 2.000000] at the "
              "end.")
def zero_queries(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases, reply = Cases(), obs.reply(WORKED_ZERO_Q)
    if not reply.ok:
        cases.error(reply, "causal_attention with zero queries", obs.probes.by_id[WORKED_ZERO_Q])
        return cases.outcome()
    t = tol("float64")
    story = ["With every query zero all scores are zero, so each receiver averages the sources it may see."] * 3
    _compare(cases, reply, "weights", ZERO_Q_WEIGHTS, t, story)
    _compare(cases, reply, "out", ZERO_Q_OUT, t, story)
    return cases.outcome()


@check("value_intervention", title="Value-only intervention", group="Worked example", section=DELIVER,
       proves="Adding 7 to the first value's first coordinate leaves the submission's own weights "
              "identical and raises each output by 7 times its own weight on that source (1 at the end).",
       property=True,
       passed="Weights unchanged and the final output rose by exactly 1: routing and payload are "
              "separate.")
def value_intervention(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    base, bumped = obs.reply(WORKED), obs.reply(WORKED_VALUE_BUMP)
    for reply in (base, bumped):
        if not reply.ok:
            cases.error(reply, "causal_attention in the value-only intervention", obs.probes.worked)
            return cases.outcome()
    w, w2, out, out2 = base["weights"], bumped["weights"], base["out"], bumped["out"]
    if w.shape != (3, 3) or w2.shape != w.shape or out.shape != (3, 2) or out2.shape != out.shape:
        cases.fail(f"The two runs returned out {tuple(out.shape)} and {tuple(out2.shape)}, weights {tuple(w.shape)} "
                   f"and {tuple(w2.shape)}: the intervention needs out (3, 2) and weights (3, 3) to be read.")
        return cases.outcome()
    # Compared with itself: its own weights before and after, its own output's change against its
    # own weight on the changed source (7 x 1/7 = 1 at the final row when the weights are right).
    # NaN-aware: a weight that is NaN in both runs did not change.
    cases.check(bool(torch.allclose(w, w2, rtol=0, atol=0, equal_nan=True)), "Changing only a value changed the weights. Queries and keys decide the routing; "
                "values are only the packages being routed.", lambda: fmt(w), lambda: fmt(w2))
    delta = out2[..., 0].double() - out[..., 0].double()
    want = VALUE_BUMP * w[:, 0].double()
    # A receiver whose weight is NaN (a row with no allowed source, 0/0) has no definite share to
    # scale: the mask checks charge that row; the property is judged on the others.
    rows = torch.isfinite(want)
    if not bool(rows.any()):
        cases.fail("Every receiver's weight on the first source is NaN or inf, so how the output follows the "
                   "value cannot be read; the mask checks say where the NaN comes from.", "finite weights",
                   lambda: fmt(w))
        return cases.outcome()
    delta, want = delta[rows], want[rows]
    cases.check(close(delta, want, tol("float64"), band_for("float64")),
                "Adding 7 to the first value's first coordinate should raise each output's first coordinate by "
                "7 times that receiver's own weight on the first source (7 x 1/7 = 1 at the final position); "
                f"your outputs rose by {fmt(delta)} while your weights on the first source are {fmt(w[:, 0])}.",
                lambda: fmt(want), lambda: fmt(delta))
    return cases.outcome()
