"""Gradient flow: the computation stays connected to its inputs and parameters.

Compared with itself, never with the reference: the submission's own autograd against finite
differences of its own function along a grader-chosen direction (a gradcheck along one direction per
input), plus every gradient present, finite and non-zero. A wrong scale or mask is the value
checks' finding; its gradient is still the true gradient of what the submission computes.
"""

from __future__ import annotations

import torch

from grader.checks.base import TRAINABLE, CheckOutcome, check
from grader.checks.observations import Cases, Observations, Reply, TolFn, fmt, shapes
from grader.probes import FD_STEP, Probe, describe

# |finite difference - autograd| <= FD_ABS * |grad| * |direction| + FD_REL * |autograd|: loose enough
# for float32 arithmetic inside (roundoff / 2h), tight enough for a gradient cut or bent anywhere.
FD_ABS, FD_REL = 1e-3, 1e-2
GRADIENT_FINDINGS = ("missing", "shape", "nan", "zero", "mismatch")  # what a rubric hint may be `when`


def _objective(reply: Reply, grad_out: torch.Tensor) -> float | None:
    out = reply.tensors.get("out") if reply.ok else None
    if out is None or out.shape != grad_out.shape:
        return None
    return float((out.double() * grad_out.double()).sum())


def _own_gradients(cases: Cases, obs: Observations, probe: Probe, reply: Reply, inputs: dict[str, str],
                   what: str, call: str) -> None:
    """inputs: gradient name in the reply -> the probe tensor it belongs to."""
    if reply.grad == "detached":
        cases.fail(f"The output of {call} ({_shapes(probe)}) is not connected to {what} at all: backward() "
                   "cannot reach them (the result does not require grad).", aspect="missing")
        return
    if reply.grad == "shape":
        out = tuple(reply.tensors["out"].shape)
        cases.fail(f"{call} on {_shapes(probe)} returned out of shape {out}, not {tuple(probe.t['grad_out'].shape)}, "
                   "so no gradient could be sent back through it.", f"out {tuple(probe.t['grad_out'].shape)}", f"out {out}",
                   aspect="shape")
        return
    usable = {}
    for name, tensor in inputs.items():
        got = reply.tensors.get(name)
        label = tensor.removeprefix("w_")
        if got is None:
            cases.fail(f"No gradient reached {label} on {describe(probe)}: it took no part in computing the output.",
                       "a gradient", "None", aspect="missing")
        elif got.shape != probe.t[tensor].shape:
            cases.fail(f"The gradient of {label} has shape {tuple(got.shape)}, not {tuple(probe.t[tensor].shape)}.",
                       aspect="shape")
        elif not bool(torch.isfinite(got).all()):
            cases.fail(f"The gradient of {label} on {describe(probe)} contains NaN or inf.", "finite", fmt(got),
                       aspect="nan")
        elif not bool(got.abs().sum() > 0):
            cases.fail(f"The gradient of {label} on {describe(probe)} is all zeros: nothing flows back through it.",
                       "non-zero", fmt(got), aspect="zero")
        else:
            cases.ok()
            usable[tensor] = got.double()
    steps = {}
    for p in obs.probes.family("fd" if probe.family == "grad" else "head_fd"):
        if p.info["of"] == probe.id:
            steps.setdefault(p.info["input"], {})[p.info["sign"]] = p
    grad_out = probe.t["grad_out"]
    for tensor, pair in steps.items():
        if tensor not in usable or len(pair) != 2:
            continue
        replies = {sign: obs.reply(p.id) for sign, p in pair.items()}
        values = {sign: _objective(r, grad_out) for sign, r in replies.items()}
        if any(v is None for v in values.values()):
            bad_sign = next(s for s, v in values.items() if v is None)
            r = replies[bad_sign]
            if not r.ok:
                cases.error(r, f"{call} with {tensor} moved by {FD_STEP:g}", pair[bad_sign])
            else:
                cases.fail(f"{call} with {tensor} moved by {FD_STEP:g} returned out of shape "
                           f"{tuple(r.tensors['out'].shape)}, not {tuple(grad_out.shape)}.")
            continue
        direction = pair[1].info["direction"].double()
        numeric = (values[1] - values[-1]) / (2 * FD_STEP)
        analytic = float((usable[tensor] * direction).sum())
        bound = FD_ABS * float(usable[tensor].norm()) * float(direction.norm()) + FD_REL * abs(analytic)
        label = tensor.removeprefix("w_")
        cases.check(abs(numeric - analytic) <= bound,
                    f"Your gradient of {label} does not match your own function on {describe(probe)}: moving {label} "
                    f"by {FD_STEP:g} along a direction changes sum(out * grad_out) at a rate of {numeric:.6g}, but "
                    f"your gradient predicts {analytic:.6g}. Something in the forward pass is not seen by autograd "
                    "(.detach(), .data, a value written in place or computed outside torch).",
                    f"{numeric:.6g}", f"{analytic:.6g}", aspect="mismatch")


def _shapes(probe: Probe) -> str:
    return shapes(probe) if "q" in probe.t else f"x {tuple(probe.t['x'].shape)}"


@check("gradient_flow", title="Gradients reach q, k and v", group="Gradients", section=TRAINABLE,
       proves="Gradients of q, k and v are finite and non-zero and agree with finite differences of the "
              "submission's own function.",
       findings=GRADIENT_FINDINGS,
       passed="Finite, non-zero gradients reach q, k and v and agree with your function's own finite "
              "differences.",
       property=True)
def gradient_flow(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in obs.family("grad"):
        if not reply.ok:
            cases.error(reply, f"causal_attention with gradients on {describe(probe)}", probe)
            continue
        inputs = {f"grad_{n}": n for n in "qkv"}
        _own_gradients(cases, obs, probe, reply, inputs, "q, k and v", "causal_attention")
    return cases.outcome()


@check("single_head_gradients", title="Gradients reach every projection", group="Gradients", section=TRAINABLE,
       needs="SingleHead",
       proves="Every projection of SingleHead gets a finite, non-zero gradient that agrees with finite "
              "differences of the module's own output.",
       findings=GRADIENT_FINDINGS,
       passed="Every projection (query, key, value) receives a finite, non-zero gradient.",
       property=True)
def single_head_gradients(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for probe, reply in obs.family("head"):
        if not reply.ok:
            cases.error(reply, f"SingleHead on {describe(probe)} (x {tuple(probe.t['x'].shape)})", probe)
            continue
        inputs = {f"grad_{n}": f"w_{n}" for n in ("query", "key", "value")}
        _own_gradients(cases, obs, probe, reply, inputs, "the projections", "SingleHead")
    return cases.outcome()
