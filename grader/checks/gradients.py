"""Gradient flow: the computation stays connected to its inputs and parameters."""

from __future__ import annotations

from functools import partial

import torch

from grader.checks import expected
from grader.checks.base import TRAINABLE, CheckOutcome, check
from grader.checks.observations import Cases, Observations, Reply, TolFn, close, fmt


def _compare_grads(cases: Cases, reply: Reply, want: dict[str, torch.Tensor], tol, what: str) -> None:
    if reply.meta.get("grad") == "detached":
        cases.fail(f"The output is not connected to {what} at all: no gradient can flow. Avoid .detach(), "
                   ".data, torch.no_grad() and argmax in the forward computation.")
        return
    for name, target in want.items():
        got = reply.tensors.get(name)
        label = name.removeprefix("grad_")
        if got is None:
            cases.fail(f"No gradient reached {label}: it was cut out of the computation.", "a gradient", "None")
        elif not bool(torch.isfinite(got).all()):
            cases.fail(f"The gradient of {label} contains NaN or inf.", "finite", fmt(got))
        elif not bool(got.abs().sum() > 0):
            cases.fail(f"The gradient of {label} is all zeros: nothing flows back through it.", fmt(target), fmt(got))
        else:
            cases.check(close(got, target, tol), f"The gradient of {label} differs from the reference.",
                        partial(fmt, target), partial(fmt, got))


@check("gradient_flow", title="Gradients reach q, k and v", group="Gradients", section=TRAINABLE,
       proves="Gradients of q, k and v are finite, non-zero and match the reference.",
       passed="Finite, non-zero gradients reach q, k and v and match the reference.")
def gradient_flow(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in obs.family("grad"):
        if not reply.ok:
            cases.error(reply, f"causal_attention with gradients on probe {probe.id}")
            continue
        want = probe.memo("grads", expected.attention_grads, *(probe.t[n] for n in ("q", "k", "v", "grad_out")))
        _compare_grads(cases, reply, want, tol("float64"), "q, k and v")
    return cases.outcome()


@check("single_head_gradients", title="Gradients reach every projection", group="Gradients", section=TRAINABLE, needs="SingleHead",
       proves="Every projection of SingleHead gets a finite, non-zero gradient matching the "
              "reference.",
       passed="Every projection (query, key, value) receives a finite, non-zero gradient.")
def single_head_gradients(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in obs.family("head"):
        if not reply.ok:
            cases.error(reply, f"SingleHead on probe {probe.id}")
            continue
        want = {n: g for n, g in probe.memo("head", expected.head, probe.t).items() if n.startswith("grad_")}
        _compare_grads(cases, reply, want, tol("float64"), "the projections")
    return cases.outcome()
