"""The report's pictures, read from what the checks observed: no second pass over the submission.

Expected weights and the unmasked control come from the probes' memos, which the checks filled
while judging (SDPA on a probe is computed once per probe, whoever asks first).
"""

from __future__ import annotations

from grader.checks.masking import INTERVENTION, control_changes, row_changes
from grader.checks.observations import Observations
from grader.probes import RANDOM_FLAT, WORKED, WORKED_WEIGHTS
from grader.report.models import Heatmap, Visuals


def visuals(obs: Observations) -> Visuals:
    def weights(pid: str) -> list | None:
        # Only weights of the shape the probe asks for are drawn: a picture's size is the probe's, never the reply's.
        r, probe = obs.reply(pid), obs.probes.by_id.get(pid)
        w = r.tensors.get("weights") if r.ok else None
        if w is None or probe is None or w.dim() != 2 or tuple(w.shape) != (probe.t["q"].shape[-2],) * 2:
            return None
        return [[x if abs(x) != float("inf") and x == x else None for x in row] for row in w.double().tolist()]

    pictures = Visuals(worked_example=Heatmap(title="Worked example", student=weights(WORKED),
                                              expected=WORKED_WEIGHTS.tolist()))
    rand = obs.probes.by_id.get(RANDOM_FLAT)
    if rand is not None:
        want = rand.expected()
        pictures.random_probe = Heatmap(title=f"Random probe (T = {rand.t['q'].shape[-2]})",
                                        student=weights(rand.id), expected=want[1].tolist())
    # The intervention drawn is the first that moved the submission's earlier rows (the one the leak
    # check failed on), else future keys and values: a picture of a change that moved nothing, beside a
    # check that says another change did, would contradict it.
    drawn = None
    for probe in obs.probes.family("leak"):
        base_probe = obs.probes.base(probe)
        if probe.info["kind"] == "base" or base_probe is None or probe.hidden:
            continue
        rows = probe.info["rows_fixed"]  # only rows before the changed positions must stay put
        base, changed = obs.reply(base_probe.id), obs.reply(probe.id)
        want = base_probe.t["v"].shape  # zero-width or oversized outputs are not drawn
        change = None
        if base.ok and changed.ok and base["out"].shape == changed["out"].shape == want and want.numel():
            change = row_changes(base["out"], changed["out"], probe.info["items_fixed"])[:rows]
        if drawn is None and probe.info["kind"] == "future_kv" or change is not None and float(change.max()) > 1e-9:
            drawn = (base_probe, probe, change)
            if change is not None and float(change.max()) > 1e-9:
                break
    if drawn is not None:
        base_probe, probe, change = drawn
        rows = probe.info["rows_fixed"]
        pictures.leak_intervention = INTERVENTION[probe.info["kind"]]
        pictures.unmasked_row_change = control_changes(base_probe, probe)[:rows].tolist()
        if change is not None:
            pictures.leak_row_change = [x if x != float("inf") else None for x in change.tolist()]
    return pictures
