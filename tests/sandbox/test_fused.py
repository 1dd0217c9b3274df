"""Fused attention is seen where it runs: at the dispatcher, whatever door led there."""

from __future__ import annotations

import pytest
import torch
from sandbox_kit import REFERENCE, attention_calls, gallery, needs_namespaces

from grader import grade
from grader.checks.contract import static_forbidden
from grader.sandbox.runner import tripwires

FUSED = ["fused_private_functions", "fused_late_namespace", "fused_jit_lookup", "fused_gc_originals",
         "fused_native_mha", "fused_coding_line", "sdpa_side_door"]
# Checks that compare values with the expected ones: none may be earned through fused attention.
VALUE_CHECKS = {"worked_example", "zero_queries", "value_intervention", "random_probes", "sdpa_parity",
                "gradient_flow", "single_head", "single_head_gradients"}


@needs_namespaces
@pytest.mark.parametrize("name", FUSED)
def test_fused_attention_earns_no_value_check(name, sandbox):
    report = grade.grade_file(gallery(name), sandbox=sandbox, secret="gallery-secret")
    status = {c.id: c.status for c in report.checks}
    if name == "fused_gc_originals":
        # Every original it found raised, so it fell back to (v, v): what that earns is not fused attention's.
        run = sandbox.run(gallery(name), attention_calls(1))
        assert "ORIGINAL False" in run.output
        return
    earned = {c.id for c in report.checks if c.id in VALUE_CHECKS and c.score > 0}
    assert not earned, f"{name} earned {earned} through fused attention"
    assert status["forbidden_api"] != "passed", f"{name} passed forbidden_api"


@pytest.mark.parametrize("name", FUSED[:-2])
def test_each_door_works_outside_the_sandbox(name):
    """The negative control: in a plain process each of these computes attention."""
    import importlib.util

    if name == "fused_gc_originals":
        pytest.skip("finds the live builtin in a plain process; nothing to prove")
    spec = importlib.util.spec_from_file_location(f"_fused_{name}", gallery(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    q, k, v = (torch.randn(2, 4, 3, dtype=torch.float64) for _ in range(3))
    out, _ = module.causal_attention(q, k, v)
    torch.testing.assert_close(out, torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True))


def test_caught_refusal_is_still_recorded(sandbox, tmp_path):
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text(
        "import torch\n"
        "def causal_attention(q, k, v):\n"
        "    try:\n"
        "        torch.ops.aten._scaled_dot_product_attention_math(q, k, v)\n"
        "    except Exception:\n"
        "        pass\n"
        "    return v, v\n"
    )
    res = sandbox.run(sneaky, attention_calls(1))
    assert res.replies["c0"].meta["fused"] == ["aten::_scaled_dot_product_attention_math"]
    clean = sandbox.run(REFERENCE, attention_calls(1))
    assert "fused" not in clean.replies["c0"].meta


def test_in_process_tripwires_restore_pytorch():
    q = torch.randn(1, 3, 2)
    with tripwires():
        with pytest.raises(RuntimeError, match="not allowed"):
            torch.ops.aten._scaled_dot_product_attention_math(q, q, q)
    torch.nn.functional.scaled_dot_product_attention(q, q, q)  # the grader's own expected values still work


def test_static_check_reads_the_coding_line():
    source = gallery("fused_coding_line").read_bytes()
    assert static_forbidden(source.decode("utf-8"), ("scaled_dot_product_attention",)) == []  # the old blind spot
    assert static_forbidden(grade.python_text(source), ("scaled_dot_product_attention",))
