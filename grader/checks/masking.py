"""Where information may flow: the leak interventions and the structure of the weights."""

from __future__ import annotations

import sys

import torch

from grader.checks.base import HIDE, PROVE_TEETH, CheckOutcome, check
from grader.checks.expected import unmasked
from grader.checks.observations import Cases, Observations, TolFn, dtype_name, fmt

# An intervention must move unmasked attention's fixed rows at least this much, or it has no teeth.
TEETH = 1e-3

_STORY = {
    "final_kv": "Changing only the final position's key and value changed earlier outputs",
    "future_kv": "Changing only future keys and values changed earlier outputs",
    "future_keys": "Changing only future keys changed earlier outputs (a mask applied after softmax leaks "
                   "through the denominator)",
    "other_items": "Changing other batch items changed the first item's output: examples must not attend "
                   "to each other",
}


def row_changes(base: torch.Tensor, changed: torch.Tensor, items: int) -> torch.Tensor:
    """Largest change of each receiving row over the untouched batch items."""
    diff = (changed.double() - base.double())[:items].abs()
    return diff.nan_to_num(nan=float("inf")).amax(dim=(0, -1))


def _control(p, kind: str) -> torch.Tensor:
    """Attention without the protection that intervention `kind` tests, on one probe's inputs."""
    q, k, v = p.t["q"], p.t["k"], p.t["v"]
    if kind != "other_items":
        return unmasked(q, k, v)
    # Across items the protection is the batch axis itself: attend over all items as one sequence.
    B, T = q.shape[:2]
    flat = [t.reshape(1, B * T, t.shape[-1]) for t in (q, k, v)]
    return unmasked(*flat).reshape(B, T, -1)


def control_changes(base_probe, probe) -> torch.Tensor:
    """How much the same intervention moves attention that lacks the protection under test.

    Memoised on the probes: the leak check and the report's picture both read it.
    """
    kind = probe.info["kind"]

    def changes() -> torch.Tensor:
        base = base_probe.memo(f"control:{kind}", _control, base_probe, kind)
        return row_changes(base, _control(probe, kind), probe.info["items_fixed"])

    return probe.memo("control_changes", changes)


@check("leak_intervention", title="No information from the future", group="Masking", section=PROVE_TEETH,
       proves="Changing only future keys and values leaves earlier output rows unchanged, and batch "
              "items never see each other.",
       passed="Changing future keys and values, or other batch items, left earlier rows untouched; "
              "the same change moves unmasked attention, so the probe has teeth.")
def leak_intervention(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    leak = obs.family("leak")
    bases = {p.id.rsplit("leak.", 1)[0]: (p, r) for p, r in leak if p.info["kind"] == "base"}
    t = tol("float64")
    for probe, reply in leak:
        if probe.info["kind"] == "base":
            continue
        base_probe, base = bases[probe.id.rsplit("leak.", 1)[0]]
        rows = probe.info["rows_fixed"]
        control = control_changes(base_probe, probe)[:rows]
        if float(control.max()) < TEETH:
            # A probe that would not catch a leak proves nothing either way: leave it out, say so.
            print(f"grader: probe {probe.id} does not move unmasked attention; not counted", file=sys.stderr)
            continue
        if not (base.ok and reply.ok):
            cases.error(reply if not reply.ok else base, "causal_attention in the leak intervention")
            continue
        if base["out"].shape != reply["out"].shape or base["out"].dim() < 3:
            cases.fail("The output shapes do not allow the leak intervention to be read.")
            continue
        changes = row_changes(base["out"], reply["out"], probe.info["items_fixed"])[:rows]
        worst = float(changes.max())
        leaked = worst > t.atol + t.rtol * float(base["out"].double().abs().max())
        cases.check(not leaked, f"{_STORY[probe.info['kind']]}: rows 0..{rows - 1} moved by up to {worst:.6f}. "
                    "Each receiving position may use only sources up to and including itself.",
                    "0 change in every earlier row", f"largest change {worst:.6f}, per row {fmt(changes)}")
    return cases.outcome()


@check("mask_structure", title="Causal mask structure", group="Masking", section=HIDE,
       proves="Weights are exactly zero above the diagonal and every row sums to one.",
       passed="Weights are zero above the diagonal and each row sums to one.")
def mask_structure(obs: Observations, tol: TolFn) -> CheckOutcome:
    cases = Cases()
    for _, reply in [(None, obs.reply("we")), *obs.family("rand")]:
        if not reply.ok:
            cases.error(reply, "causal_attention")
            continue
        w = reply["weights"].double()
        if w.dim() < 2 or w.shape[-1] != w.shape[-2]:
            cases.fail(f"weights should be square over positions (..., T, T), got {tuple(w.shape)}.")
            continue
        T = w.shape[-1]
        upper = torch.ones(T, T, dtype=torch.bool).triu(1)
        above = w[..., upper]
        cases.check(bool((above == 0).all()),
                    "Weights above the diagonal are not exactly zero: a receiving position takes a share from a "
                    "future source. Forbidden scores must become -inf before softmax, since exp(0) = 1.",
                    "0 above the diagonal", f"up to {float(above.abs().nan_to_num(nan=float('inf')).max()):.6f}")
        sums = w.sum(-1)
        t = tol(dtype_name(reply["weights"]))
        good = bool(torch.isfinite(sums).all()) and bool(torch.allclose(sums, torch.ones_like(sums), atol=t.atol * T))
        cases.check(good, "Rows of the weights do not sum to one. Each row is a distribution over the allowed "
                    "sources; zeroing future weights after softmax leaves rows that sum to less than one.",
                    "every row sums to 1", f"row sums {fmt(sums.reshape(-1, T)[0])}")
    return cases.outcome()
