"""The contract: batch items kept apart, the return value, untouched inputs, shape validation and no
ready-made attention.
"""

from __future__ import annotations

import math

import torch

from grader.checks.contract import MISMATCH
from grader.diagnosis.evidence.context import PROBE, Context, Facts, inputs, number, output, shape, sizes
from grader.vocabulary import (
    FORBIDDEN_API,
    PROCESS_FAILURES,
    WRONG_RETURN_TYPE,
)

# ---------------------------------------------------------------- batches and the contract


def batch_mixing(ctx: Context) -> Facts | None:
    for probe, reply in ctx.attention(families=("leak",)):
        if probe.info.get("kind") != "other_items":
            continue
        base_probe = ctx.obs.probes.base(probe)
        base = output(ctx.obs.reply(base_probe.id), base_probe) if base_probe is not None else None
        changed = output(reply, probe)
        if base is None or changed is None:
            return None  # another shape cannot be read item by item
        items = probe.info.get("items_fixed", 1)
        before, after = base[:items].double(), changed[:items].double()
        finite = torch.isfinite(before) & torch.isfinite(after)
        if not finite.any():
            return None
        moved = float((after - before)[finite].abs().max())
        if moved > 1e-9 * max(1.0, float(before[finite].abs().max())):
            return {"moved": number(moved), "B": str(probe.t["q"].shape[0])}
    return None


def swapped_return(ctx: Context) -> Facts | None:
    for probe, reply in ctx.attention():
        # The runner reads an unambiguous (weights, out) through and says so; the replies are in order.
        if reply.ok and "swapped" in reply.slips:
            return {"first": shape(reply["weights"]), "second": shape(reply["out"]), "on": inputs(probe)}
    for probe, reply in ctx.attention(families=("rand",)):
        z = sizes(probe)
        if not reply.ok or z["T"] == z["d_v"]:
            continue
        lead = tuple(probe.t["q"].shape[:-2])
        out, w = reply.tensors["out"], reply.tensors["weights"]
        if tuple(out.shape) == (*lead, z["T"], z["T"]) and tuple(w.shape) == (*lead, z["T"], z["d_v"]):
            return {"first": shape(out), "second": shape(w), "on": inputs(probe)}
    return None


def wrong_return_type(ctx: Context) -> Facts | None:
    listed = next((p for p, r in ctx.attention() if "list" in r.slips), None)
    if listed is not None:  # read through as a pair by the runner, still not the tuple the contract asks
        return {"what": "a list instead of a tuple", "on": inputs(listed)}
    lone = next((p for p, r in ctx.attention() if "lone_out" in r.slips), None)
    if lone is not None:  # `return out` alone, its weights read by the runner (v = I): still not the pair
        return {"what": "out alone instead of the pair (out, weights)", "on": inputs(lone)}
    found = next(((p, r) for p, r in ctx.attention() if r.error_type == WRONG_RETURN_TYPE), None)
    if found is None:
        return None
    probe, reply = found
    return {"what": (reply.error or "").rstrip("."), "on": inputs(probe)}


def inputs_mutated(ctx: Context) -> Facts | None:
    for probe, reply in ctx.attention():
        if not reply.ok:
            continue
        for name in "qkv":
            after = reply.tensors.get(f"{name}_after")
            sent = probe.t[name]
            if after is None or after.shape != sent.shape:
                continue
            diff = (after.double() - sent.double()).abs().nan_to_num(nan=math.inf)
            if float(diff.max()) > 0:
                return {"name": name, "on": inputs(probe), "by": number(float(diff.max()))}
    return None


def no_shape_validation(ctx: Context) -> Facts | None:
    """A mismatched call that returned a result (or raised something other than ValueError),
    from a function that does return results on well-shaped inputs."""
    if not any(reply.ok for _, reply in ctx.attention()):
        return None
    for probe in ctx.obs.probes.family("shape"):
        reply = ctx.obs.reply(probe.id)
        if probe.hidden or reply.error_type in PROCESS_FAILURES:
            continue
        kind = MISMATCH.get(probe.info.get("mismatch"), "mismatched shapes")
        if reply.ok:
            return {"on": inputs(probe), "kind": kind, "did": "returned a result without an error", PROBE: probe.id}
        if reply.error_type != "ValueError" and "ValueError" not in reply.mro:
            return {"on": inputs(probe), "kind": kind, "did": f"raised {reply.error_type}, not ValueError",
                    PROBE: probe.id}
    return None



def forbidden_api(ctx: Context) -> Facts | None:
    outcome = ctx.outcomes.get("forbidden_api")
    tripped = [pid for pid, r in ctx.obs.replies.items() if r.error_type == FORBIDDEN_API]
    if tripped:
        return {"what": f"At run time your code called PyTorch's ready-made attention ({len(tripped)} calls "
                        f"stopped by the grader)"}
    if outcome is not None and outcome.status == "failed":
        return {"what": outcome.feedback.split(". ")[0].rstrip(".")}
    return None
