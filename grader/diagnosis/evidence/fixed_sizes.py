"""Sizes written as numbers: code that runs (or masks right) at one length or one value width only,
and calls on inputs the contract allows that raised.
"""

from __future__ import annotations

import torch

from grader.checks.observations import value_width_split
from grader.diagnosis.evidence.context import (
    PROBE,
    Context,
    Facts,
    first_slice,
    inputs,
    number,
    sizes,
    weights,
)
from grader.diagnosis.evidence.scale import as_root, read_scale, worked_constant
from grader.vocabulary import (
    NOT_RAISED,
)

# ---------------------------------------------------------------- sizes written as numbers


def hardcoded_shape(ctx: Context) -> Facts | None:
    """Works at one sequence length only (or up to one): crashes at the others, or masks right only there.

    Hidden probes count as evidence here, but only visible ones are quoted.
    """
    probes = [p for p in ctx.obs.probes.probes if p.family != "shape" and p.target in ("attention", "head")]
    replies = [(p, ctx.obs.reply(p.id)) for p in probes]
    ran = [p for p, r in replies if r.ok]
    crashed = [(p, r) for p, r in replies if not r.ok and r.error_type not in NOT_RAISED]
    good, bad = {p.length for p in ran}, {p.length for p, _ in crashed}
    if crashed and good and not good & bad and (len(good) == 1 or max(good) < min(bad)):
        shown = next(((p, r) for p, r in crashed if not p.hidden), None)
        seen = sorted({p.length for p, _ in crashed if not p.hidden})
        if len(good) == 1:
            (t0,) = good
            what = f"Your code runs only when T = {t0}: every call with another length"
        else:
            what = f"Your code runs only up to T = {max(good)}: every call with a longer sequence"
        what += f" (T = {', '.join(map(str, seen))})" if seen else ""
        if shown is not None:
            p, r = shown
            what += f" failed, the first ({inputs(p)}) with {r.error_type}{r.where}: {(r.error or '').strip()[:200]}"
        else:
            what += f" failed with {crashed[0][1].error_type}"
        return {"what": what}
    # A mask right at one length and wrong at the others.
    right, wrong = set(), set()
    for p, r in ctx.attention():
        w = weights(r, p)
        if w is None:
            continue
        T = w.shape[-1]
        causal = bool(((first_slice(w) != 0) == torch.ones(T, T, dtype=torch.bool).tril()).all())
        (right if causal else wrong).add(T)
    if len(right) == 1 and wrong and not (right & wrong):
        (t0,) = right
        return {"what": f"Your mask is right only when T = {t0}: at T = {', '.join(map(str, sorted(wrong)))} "
                        f"the pattern of zero weights is not the lower triangle"}
    reading = read_scale(ctx)
    if reading is not None and worked_constant(reading):
        return {"what": f"Your scores are scaled by {number(reading.scale)}{as_root(reading.scale)} whatever "
                        f"d_k: at d_k = {sizes(reading.probe)['d_k']} the scale should be 1/sqrt(d_k) = "
                        f"{number(reading.right)}"}
    return None


def value_width_assumed(ctx: Context) -> Facts | None:
    """Raised on exactly the calls whose d_v differs from d_k (Observations.value_width_split)."""
    split = value_width_split(ctx.obs)
    if split is None:
        return None
    ran, raised = split
    probe, reply = raised[0]
    z = sizes(probe)
    worked = ", the worked example among them," if any(p.worked for p in ran) else ""
    return {"ran": str(len(ran)), "worked": worked, "on": inputs(probe), "d_v": str(z["d_v"]), "d_k": str(z["d_k"]),
            "raised": reply.raised.strip()[:300], PROBE: probe.id}


def call_raises(ctx: Context) -> Facts | None:
    """A call on inputs the contract allows raised an exception of the submission's own."""
    calls = [(p, ctx.obs.reply(p.id)) for p in ctx.obs.probes.visible()
             if p.family != "shape" and p.target in ("attention", "head")]
    raised = [(p, r) for p, r in calls if not r.ok and r.error_type not in NOT_RAISED and not r.skipped]
    if not raised:
        return None
    probe, reply = raised[0]
    share = "Every call" if len(raised) == len(calls) else f"{len(raised)} of {len(calls)} calls"
    raised_text = reply.raised.strip()[:300]
    # Only where the reply names a line of the file: an error the grader's own check raised (a layer of the
    # wrong width) has no line of the student's to point at.
    line_note = (" The line quoted is where your own code raised, even when the error comes from inside torch."
                 if " line " in raised_text and "(`" in raised_text else "")
    return {"on": inputs(probe), "raised": raised_text, "share": share, "line_note": line_note, PROBE: probe.id}
