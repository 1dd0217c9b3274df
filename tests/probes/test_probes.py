"""The probes themselves: the chapter's numbers, distinct sizes, and interventions with teeth."""

from __future__ import annotations

import pytest

from grader.checks.masking import TEETH, control_changes
from grader.probes import WORKED_OUT, WORKED_WEIGHTS, ZERO_Q_OUT, build_probes, expected, worked_example


def test_sdpa_reproduces_the_chapters_closed_forms():
    q, k, v = worked_example()
    out, weights = expected.attention(q, k, v)
    assert (out - WORKED_OUT).abs().max() < 1e-15 * 10 and (weights - WORKED_WEIGHTS).abs().max() < 1e-15
    zero_out, _ = expected.attention(0 * q, k, v)
    assert (zero_out - ZERO_Q_OUT).abs().max() < 1e-14


@pytest.mark.parametrize("seed", [None, *range(40)])
def test_every_leak_intervention_moves_unprotected_attention(seed):
    """The negative control: each intervention would reveal a missing mask (or batch separation)."""
    probes = build_probes(seed)
    for probe in probes.family("leak"):
        if probe.info["kind"] != "base":
            base = probes.by_id[probe.info["base"]]
            rows = probe.info["rows_fixed"]
            assert float(control_changes(base, probe)[:rows].max()) > 100 * TEETH, probe.id


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_named_dimensions_get_distinct_sizes(seed):
    for probe in build_probes(seed).family("rand"):
        q, v = probe.t["q"], probe.t["v"]
        sizes = [*q.shape[:-2], q.shape[-2], q.shape[-1], v.shape[-1]]
        assert len(set(sizes)) == len(sizes), (probe.id, sizes)


@pytest.mark.parametrize("seed", [None, 1, 2])
def test_every_family_runs_at_several_lengths_never_only_the_worked_examples(seed):
    probes = build_probes(seed)
    for family in ("rand", "grad", "f32", "leak", "shift", "fd"):
        lengths = {p.t["q"].shape[-2] for p in probes.family(family) if not p.id.startswith("shift.we")}
        assert len(lengths) >= 2 and 3 not in lengths, (family, lengths)


@pytest.mark.parametrize("seed", [None, 1])
def test_a_finite_difference_step_runs_forward_only_in_the_gradients_mode_of_its_probe(seed, tmp_path):
    """A step's reply is read for its output alone (gradients.py's objective), so the child does no backward
    pass for it; its inputs still require grad, as the gradient probe's do, so the forward is the same function."""
    from grader.paths import ROOT
    from grader.sandbox.runner import answer, load_module

    module, _ = load_module(str(ROOT / "reference" / "attention.py"), "fd_reference")
    probes = build_probes(seed)
    steps = [p for p in probes.probes if p.family in ("fd", "head_fd")]
    assert steps and all(p.call.meta.get("backward") is False for p in steps)
    for p in steps:
        reply = answer(module, p.call)
        assert reply.meta["ok"] and "grad" not in reply.meta, p.id
        assert not any(n.startswith("grad_") or n.endswith("_after") for n in reply.tensors), (p.id, list(reply.tensors))
    for p in probes.family("grad") + probes.family("head"):  # the probes whose gradients are read keep them
        assert answer(module, p.call).meta["grad"] == "ok", p.id


def test_visible_calls_keep_their_own_bytes_and_a_changed_copy_is_encoded_afresh():
    """The visible calls are the same for every submission, so their bytes are made once per process."""
    import dataclasses

    from grader.sandbox.wire import encode, wire_bytes

    probes = build_probes(7)
    for p in probes.probes:
        if p.hidden:
            assert p.call.encoded is None, p.id
        else:
            assert p.call.encoded == encode(p.call), p.id
    call = probes.worked.call
    changed = dataclasses.replace(call, meta=call.meta | {"id": "changed"})
    assert changed.encoded is None and wire_bytes(changed) == encode(changed) != wire_bytes(call)


def test_expected_at_a_named_scale_is_computed_once_per_probe_and_equals_a_fresh_computation():
    """dtype_downcast asks it of every visible probe on every regrade; the values depend on the probe only."""
    import math

    import torch

    probe = next(p for p in build_probes().probes if p.family == "rand")
    scale = 1 / math.sqrt(probe.t["q"].shape[-1])
    first = probe.expected_at(scale)
    assert probe.expected_at(scale) is first
    fresh = expected.attention(probe.t["q"], probe.t["k"], probe.t["v"], scale=scale)
    assert all(torch.equal(a, b) for a, b in zip(first, fresh, strict=True))
