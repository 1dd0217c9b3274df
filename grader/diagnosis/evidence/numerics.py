"""Numbers that overflow, underflow or lose precision, and the full head: its wiring and its gradients."""

from __future__ import annotations

import itertools
import math

import torch

from grader.checks.observations import fmt
from grader.diagnosis.evidence.context import (
    OVERFLOW,
    PROBE,
    Context,
    Facts,
    first_slice,
    inputs,
    number,
    output,
    pair,
    scaled_scores,
    sizes,
    weights,
)
from grader.diagnosis.evidence.scale import SCALE_FORMULAS, probe_scales, read_scale
from grader.probes import expected

# ---------------------------------------------------------------- numerics


def unstable_softmax(ctx: Context) -> Facts | None:
    """NaN or inf only where scores are large enough to overflow exp, finite everywhere else."""
    overflowed, calm = None, []
    read = [(probe, got) for probe, reply in ctx.attention() if (got := pair(reply, probe)) is not None]
    finites = [bool(torch.isfinite(out).all()) and bool(torch.isfinite(w).all()) for _, (out, w) in read]
    if all(finites):
        return None  # nothing overflowed: no scores need reading
    for (probe, (out, _)), finite in zip(read, finites, strict=True):
        top = float(scaled_scores(probe).abs().max())
        limit = OVERFLOW.get(probe.t["q"].dtype, 88.0)
        if top > limit and not finite and overflowed is None:
            overflowed = (probe, out, top)
        elif top < limit / 4:
            calm.append(finite)
    if overflowed is None or not calm or not all(calm):
        return None
    probe, out, top = overflowed
    bad = int((~torch.isfinite(out)).sum())
    return {"at": f"{inputs(probe)}, where scores reach about {number(round(top))}", PROBE: probe.id,
            "bad": f"{bad} of {out.numel()}", "dtype": str(probe.t["q"].dtype).removeprefix("torch.")}


# exp(x) is exactly 0 below about -745 in float64 and -103 in float32; the margins keep a row near the
# edge out of either set, so a row is named only where the two explanations cannot both hold.
UNDERFLOW = {torch.float32: (95.0, 110.0), torch.float64: (730.0, 760.0)}


def row_max_includes_future(ctx: Context) -> Facts | None:
    """NaN exactly in the rows where the largest score is a forbidden one far above every allowed one:
    exp(allowed - max over all positions) underflows to 0 for every allowed source, and 0 / 0 is NaN.
    Overflow (no maximum subtracted) would put NaN where an allowed score is large instead."""
    for probe, reply in ctx.attention(families=("rand", "worked")):
        read = pair(reply, probe)
        if read is None:
            continue
        out, _ = read
        scores = scaled_scores(probe)
        T = scores.shape[-1]
        allowed = torch.ones(T, T, dtype=torch.bool).tril()
        top_allowed = torch.where(allowed, scores, -math.inf).amax(-1)  # (..., T)
        gap = scores.amax(-1) - top_allowed
        nan_rows = ~torch.isfinite(out.double()).all(-1)
        low, high = UNDERFLOW.get(probe.t["q"].dtype, UNDERFLOW[torch.float64])
        overflow = top_allowed > OVERFLOW.get(probe.t["q"].dtype, 88.0)
        if not bool(nan_rows.any()) or bool((nan_rows & overflow).any()):
            continue
        if bool((nan_rows <= (gap > low)).all()) and bool(((gap > high) <= nan_rows).all()):
            where = torch.nonzero(nan_rows)[0].tolist()
            row = where[-1]
            return {"on": inputs(probe), "bad": f"{int(nan_rows.sum())} of {nan_rows.numel()}", PROBE: probe.id,
                    "row": str(row), "gap": number(round(float(gap[tuple(where)])))}
    return None


def dtype_downcast(ctx: Context) -> Facts | None:
    """float64 in, float32 out; or float64 out that is right only to float32's rounding."""
    precision = ctx.outcomes.get("precision")
    if precision is not None and precision.status == "failed":  # the check's own measured finding
        return {"what": precision.feedback.split(". ")[0].rstrip(".")}
    errors = []
    for probe, reply in ctx.attention(families=("worked", "rand")):
        got = output(reply, probe)
        if probe.t["q"].dtype != torch.float64 or got is None:
            continue
        if got.dtype != torch.float64:
            return {"what": f"float64 inputs came back as {str(got.dtype).removeprefix('torch.')} ({inputs(probe)})"}
        scales = probe_scales(ctx)  # measured at the scale the code uses, so a wrong one hides nothing
        scale = scales.get(probe.id)
        if scale is None and scales and read_scale(ctx) is not None:
            continue  # a wrong scale elsewhere and none readable here: its error would be the scale's
        # (With the chapter's scale wherever one was read, a probe whose scale cannot be read is held to
        # the chapter's values: its weights are no softmax of scaled scores, which is no rounding.)
        if scale is None:
            want = probe.expected()[0]
        else:
            # A read scale carries the estimate's own error; the formula it matches has none.
            dims = sizes(probe)
            exact = [f(dims["T"], dims["d_k"], dims["d_v"]) for _, _, f in SCALE_FORMULAS]
            formula = next((e for e in exact if abs(e - scale) <= 1e-9 * abs(e)), None)
            want = (probe.expected_at(formula) if formula is not None
                    else expected.attention(probe.t["q"], probe.t["k"], probe.t["v"], scale=scale))[0]
        if got.shape != want.shape or not torch.isfinite(got).all():
            return None
        errors.append((float((got - want).abs().max()) / max(1.0, float(want.abs().max())), probe))
    if not errors:
        return None
    worst, probe = max(errors, key=lambda e: e[0])
    # Rounding of a float32 step (about 1e-7), never a wrong formula (1e-2 and more), never float64
    # (1e-16, or about 1e-12 at a scale read from the weights rather than a formula).
    if 1e-9 < worst < 1e-4:
        return {"what": f"Your float64 results are right only to about {worst:.1e} ({inputs(probe)}), the size of "
                        f"float32 rounding, where float64 attention agrees to about 1e-16: part of your "
                        f"computation runs in float32"}
    return None


def hard_attention(ctx: Context) -> Facts | None:
    for probe, reply in ctx.attention(families=("rand",)):
        w = weights(reply, probe)
        if w is None or w.shape[-1] < 3:
            continue
        one_hot = bool(((w == 0) | (w == 1)).all()) and bool((w.sum(-1) == 1).all())
        return {"row_last": fmt(first_slice(w)[-1]), "T": str(w.shape[-1])} if one_hot else None
    return None


def out_not_from_weights(ctx: Context) -> Facts | None:
    """Its out is not its own weights times v: the output was computed from other shares (before the
    mask, transposed, ...) than the weights it returns. Compared with itself, on the worked example."""
    probe = ctx.obs.probes.worked
    read = pair(ctx.obs.reply(probe.id), probe)
    if read is None:
        return None
    out, w = (t.double() for t in read)
    if not (bool(torch.isfinite(w).all()) and bool(torch.isfinite(out).all())):
        return None
    blended = w @ probe.t["v"].double()
    gap = (out - blended).abs().amax(-1)
    if float(gap.max()) <= 1e-5 * max(1.0, float(blended.abs().max())):
        return None
    row = int(gap.argmax())
    return {"row": str(row), "mine": fmt(blended[row]), "out": fmt(out[row])}


_ROLES = ("query", "key", "value")


def head_wiring(ctx: Context) -> Facts | None:
    """SingleHead hands its projections to attention in the wrong roles: its output is attention on
    a permutation of (x W_query^T, x W_key^T, x W_value^T), while its own causal_attention on those
    projections in their right roles is right, so the head, not the function, is what differs."""
    for probe in ctx.obs.probes.family("head"):
        projections = ctx.obs.probes.own_attention(probe)  # x @ W^T for query, key and value
        if probe.hidden or projections is None:
            continue
        reply, own = ctx.obs.reply(probe.id), ctx.obs.reply(projections.id)
        if not (reply.ok and own.ok):
            continue
        proj = dict(zip(_ROLES, (projections.t[n].double() for n in "qkv"), strict=True))
        right = probe.expected_head()["out"]  # what single_head compared with
        got, mine = reply.tensors.get("out"), output(own, projections)
        if got is None or mine is None or got.shape != right.shape or mine.shape != right.shape:
            continue
        got, mine = got.double(), mine.double()
        if not torch.allclose(mine, right, atol=1e-8) or torch.allclose(got, right, atol=1e-8):
            continue  # its causal_attention is wrong here (the attention checks say so), or the head is right
        # Any projection in any role, one used twice included (keys from self.query, say).
        for order in itertools.product(_ROLES, repeat=3):
            a, b, c = (proj[r] for r in order)
            if order == _ROLES or a.shape[-1] != b.shape[-1] or c.shape[-1] != right.shape[-1]:
                continue
            if torch.allclose(expected.attention(a, b, c)[0], got, atol=1e-8):
                given = [f"the {r} projection as the {want}" for r, want in zip(order, _ROLES, strict=True) if r != want]
                return {"wiring": " and ".join(given), "x": str(tuple(probe.t["x"].shape)), PROBE: probe.id,
                        "unused": ", ".join(r for r in _ROLES if r not in order)}
    return None


def detached_graph(ctx: Context) -> Facts | None:
    for probe in ctx.obs.probes.family("grad"):
        reply = ctx.obs.reply(probe.id)
        if probe.hidden or not reply.ok:
            continue
        missing = ["q", "k", "v"] if reply.grad == "detached" else list(reply.grad_missing)
        if missing:
            return {"missing": ", ".join(missing)}
    wiring = ctx.memo("head_wiring", lambda: head_wiring(ctx))
    unused = set((wiring or {}).get("unused", "").split(", ")) - {""}
    for probe in ctx.obs.probes.family("head"):
        reply = ctx.obs.reply(probe.id)
        if probe.hidden or not reply.ok:
            continue
        # A projection the head never hands to attention gets no gradient: that is its wiring, not a cut.
        missing = [n for n in reply.grad_missing if n not in unused]
        if reply.grad == "detached" or missing:
            return {"missing": ", ".join(f"SingleHead.{n}" for n in missing) or "any projection"}
    return None
