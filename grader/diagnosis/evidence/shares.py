"""Turn scores into shares: which axis the softmax normalised."""

from __future__ import annotations

import torch

from grader.checks.base import Tolerance
from grader.checks.observations import within
from grader.diagnosis.evidence.context import SUM_ATOL, Context, Facts, shape, weights

# ---------------------------------------------------------------- which axis softmax normalised


def normalised_axes(w: torch.Tensor) -> list[int]:
    """The dims (negative indices) along which the weights sum to one where the causal mask allows."""
    allowed = torch.ones(w.shape[-1], w.shape[-1], dtype=torch.bool).tril()
    clean = w.double().nan_to_num(0.0, posinf=0.0, neginf=0.0)
    axes = []
    for d in range(-w.dim(), 0):
        sums = clean.sum(d)
        if d < -2:
            sums = sums[..., allowed]  # forbidden cells may be NaN along a batch axis
        if sums.numel() and within(sums, sums.new_ones(()), Tolerance(atol=SUM_ATOL, rtol=0.0)):  # allclose to 1
            axes.append(d)
    return axes


AXIS_NAMES = {-1: "the sources (the last dim)", -2: "the receiving positions"}


def _axis_name(d: int, ndim: int) -> str:
    if d in AXIS_NAMES:
        return AXIS_NAMES[d]
    lead = ndim - 2
    return "the batch items" if lead == 1 or d == -ndim else "the heads"


def softmax_wrong_axis(ctx: Context) -> Facts | None:
    wrong, right = None, []
    for probe, reply in ctx.attention(families=("rand", "worked")):
        w = weights(reply, probe)
        if w is None or probe.t["q"].shape[-2] < 2:
            continue
        axes = normalised_axes(w)
        if -1 in axes:
            right.append(probe)
        elif axes and wrong is None:
            wrong = (probe, w, axes[0])
    if wrong is None:
        return None
    probe, w, d = wrong
    dim = w.dim() + d
    facts = {"shape": shape(w), "dim": str(dim), "axis": _axis_name(d, w.dim())}
    if any(p.t["q"].dim() != probe.t["q"].dim() for p in right):
        flat = min(p.t["q"].dim() for p in right)
        facts["only"] = (f" With {flat - 2 or 'no'} batch dimension{'s' if flat - 2 > 1 else ''} your rows do sum "
                         f"to one: dim={dim} names the source axis only for some inputs; dim=-1 always does.")
    else:
        facts["only"] = ""
    return facts
