"""The chapter's worked example, its zero-query baseline and the value-only intervention."""

from __future__ import annotations

import torch

from grader.checks.base import BASELINE, DELIVER, CheckOutcome, check
from grader.checks.observations import Cases, Observations, TolFn, close, first_bad_row, fmt
from grader.probes import VALUE_BUMP, WORKED_OUT, WORKED_WEIGHTS, ZERO_Q_OUT, ZERO_Q_WEIGHTS

# What the chapter says about each receiving position of the worked example.
WORKED_ROWS = (
    "The first position can use only itself: weights [1, 0, 0], output [2, 0].",
    "At the middle position the last source is forbidden, so exponentials [1, 2] become [1/3, 2/3, 0].",
    "The final row's scores are [0, ln 2, ln 4]; exponentials [1, 2, 4] give shares 1/7, 2/7, 4/7, "
    "and the output (1/7)[2,0] + (2/7)[0,4] + (4/7)[6,2] = [26/7, 16/7].",
)


def _compare(cases: Cases, reply, name: str, expected: torch.Tensor, tol, story) -> None:
    actual = reply.tensors.get(name)
    if actual is None or actual.shape != expected.shape:
        shape = None if actual is None else tuple(actual.shape)
        cases.fail(f"{name} should have shape {tuple(expected.shape)}, got {shape}.", fmt(expected), fmt(actual))
        return
    row = first_bad_row(actual, expected, tol)
    if row is None:
        cases.ok()
        return
    cases.fail(
        f"Receiving position {row}: expected {name} {fmt(expected[row])}, got {fmt(actual[row])}. {story[row]}",
        fmt(expected[row]),
        fmt(actual[row]),
    )


@check("worked_example", title="Worked example", group="Worked example", section=DELIVER,
       proves="The chapter's three-position example gives weights [1,0,0], [1/3,2/3,0], "
              "[1/7,2/7,4/7] and outputs [2,0], [2/3,8/3], [26/7,16/7].",
       passed="Weights [1/7, 2/7, 4/7] at the final position and output [3.714286, 2.285714]: a "
              "blend, not the winning value.")
def worked_example(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases, reply = Cases(), obs.reply("we")
    if not reply.ok:
        cases.error(reply, "causal_attention on the worked example")
        return cases.outcome()
    t = tol("float64")
    _compare(cases, reply, "weights", WORKED_WEIGHTS, t, WORKED_ROWS)
    _compare(cases, reply, "out", WORKED_OUT, t, WORKED_ROWS)
    return cases.outcome()


@check("zero_queries", title="Zero queries give plain averages", group="Worked example", section=BASELINE,
       proves="With every query zero, each receiver averages the values it is allowed to see "
              "([2.666667, 2.0] at the end).",
       passed="Zero queries give plain averages of the allowed values: [2.666667, 2.000000] at the "
              "end.")
def zero_queries(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases, reply = Cases(), obs.reply("we.zero_q")
    if not reply.ok:
        cases.error(reply, "causal_attention with zero queries")
        return cases.outcome()
    t = tol("float64")
    story = ["With every query zero all scores are zero, so each receiver averages the sources it may see."] * 3
    _compare(cases, reply, "weights", ZERO_Q_WEIGHTS, t, story)
    _compare(cases, reply, "out", ZERO_Q_OUT, t, story)
    return cases.outcome()


@check("value_intervention", title="Value-only intervention", group="Worked example", section=DELIVER,
       proves="Adding 7 to the first value's first coordinate leaves the weights identical and "
              "raises the last output's first coordinate by exactly 1.",
       passed="Weights unchanged and the final output rose by exactly 1: routing and payload are "
              "separate.")
def value_intervention(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    base, bumped = obs.reply("we"), obs.reply("we.value_bump")
    for reply in (base, bumped):
        if not reply.ok:
            cases.error(reply, "causal_attention in the value-only intervention")
            return cases.outcome()
    try:
        same = torch.equal(base["weights"], bumped["weights"])
        cases.check(same, "Changing only a value changed the weights. Queries and keys decide the routing; "
                    "values are only the packages being routed.",
                    lambda: fmt(base["weights"]), lambda: fmt(bumped["weights"]))
        delta = bumped["out"][..., 0].double() - base["out"][..., 0].double()
        # Each receiver's first coordinate grows by 7 times its weight on source 0: [7, 7/3, 1].
        expected = VALUE_BUMP * WORKED_WEIGHTS[:, 0]
        cases.check(close(delta, expected, tol("float64")),
                    "Adding 7 to the first value's first coordinate should raise the final output's first "
                    "coordinate by exactly 7 x 1/7 = 1.", lambda: fmt(expected), lambda: fmt(delta))
    except (KeyError, RuntimeError, IndexError):
        cases.fail("The outputs of the two runs could not be compared: check their shapes.")
    return cases.outcome()
