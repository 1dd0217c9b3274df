"""Library attention refused as a class: every attention implementation of the torch the server
imported is found by walking its modules and refused at call (named by forbidden_api); torch's
files are out of the child's sight, so no other module of torch's is imported and none of its
source or bytecode re-executed."""

from __future__ import annotations

import pytest
import torch
from sandbox_kit import (
    assert_healthy,
    attention_calls,
    gallery,
    load_reference,
    needs_namespaces,
)

from grader.sandbox import runner


def _qualnames() -> set[str]:
    return {f"{f.__module__}.{f.__qualname__}" for f in runner.library_attention()}


def test_the_walk_finds_what_torch_ships_and_nothing_an_honest_file_needs():
    import torch.ao.nn.quantizable  # noqa: F401 - imported by torch itself; named here for the reader

    found = _qualnames()
    for name in ("torch.nn.functional.multi_head_attention_forward",
                 "torch.nn.modules.activation.MultiheadAttention.forward",
                 "torch.ao.nn.quantizable.modules.activation.MultiheadAttention._forward_impl",
                 "torch._higher_order_ops.flex_attention.math_attention",
                 "torch._decomp.decompositions.scaled_dot_product_flash_attention_for_cpu"):
        assert name in found, name
    for name in ("torch.nn.functional.softmax", "torch.nn.modules.linear.Linear.forward",
                 "torch.autograd.grad", "torch.nn.modules.module.Module._call_impl"):
        assert name not in found, name


def test_the_criteria_read_code_not_names():
    """An honest attention (softmax of a matrix product) is what the walk looks for; only torch's own
    files are walked, so a student's is never refused. The control: a softmax alone is not attention."""
    def honest(q, k, v):
        return torch.softmax(q @ k.transpose(-2, -1), -1) @ v

    def shifted(x):
        return torch.softmax(x - x.max(), -1)

    assert runner._computes_attention(honest) and not runner._computes_attention(shifted)
    assert honest not in runner.library_attention()


@pytest.mark.parametrize("name, culprit", [
    ("lib_flex_reference", "torch._higher_order_ops.flex_attention.math_attention"),
    ("lib_quantizable_mha", "torch.ao.nn.quantizable.modules.activation.MultiheadAttention._forward_impl"),
])
def test_library_attention_is_refused_and_named(sandbox, name, culprit):
    res = sandbox.run(gallery(name), attention_calls(2))
    for reply in res.replies.values():
        assert reply.meta["ok"] is False and reply.meta["error_type"] == "ForbiddenAPI", reply.meta
        assert culprit in reply.meta["fused"]
    assert len(res.replies) == 2
    assert_healthy(sandbox)


@needs_namespaces
def test_torch_source_cannot_be_re_executed(sandbox, open_sandbox):
    calls = attention_calls(1)
    res = sandbox.run(gallery("lib_source_reexec"), calls)
    assert res.load.kind == "load_error" and res.load.meta["error_type"] == "FileNotFoundError", res.load.meta
    # The control: where torch's files can be read, the fresh copy computes attention, correctly.
    control = open_sandbox.run(gallery("lib_source_reexec"), calls)
    assert control.replies["c0"].meta["ok"] is True, control.replies["c0"].meta
    out, _ = load_reference().causal_attention(*(calls[0].tensors[x] for x in "qkv"))
    torch.testing.assert_close(control.replies["c0"].tensors["out"], out)
    assert_healthy(sandbox)


@needs_namespaces
def test_torch_modules_the_server_never_imported_cannot_be_imported(sandbox, open_sandbox):
    res = sandbox.run(gallery("lib_unimported_modules"), attention_calls(1))
    assert res.load.kind == "load_error" and res.load.meta["error_type"] == "ModuleNotFoundError", res.load.meta
    assert res.output.count("NOT IMPORTED") == 2 and "ModuleNotFoundError" in res.output
    # The control: where torch's files can be read, flex attention's public module imports.
    control = open_sandbox.run(gallery("lib_unimported_modules"), attention_calls(1))
    assert "IMPORTED torch.nn.attention.flex_attention" in control.output, control.output


PRINTS = '''import math
import torch
import torch.nn.functional as F

print("at import", torch.randn(2, 2), torch.nn.Linear(2, 2), f"{torch.tensor(0.5):.2f}")


def causal_attention(q, k, v):
    T = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    w = F.softmax(s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")), dim=-1)
    print("weights", w[0], w.requires_grad_() * 1)
    return w @ v, w
'''


def test_an_honest_file_that_prints_tensors_still_runs(sandbox, tmp_path):
    """torch's files are out of the child's sight, so what printing a tensor imports must be imported
    already (the server's warm-up does it): an honest, chatty file is graded like any other."""
    source = tmp_path / "prints.py"
    source.write_text(PRINTS)
    calls = attention_calls(2)
    res = sandbox.run(source, calls)
    assert res.load.kind == "loaded" and res.failures == {}, (res.load.meta, res.failures)
    ref = load_reference()
    for call in calls:
        reply = res.replies[call.meta["id"]]
        assert reply.meta["ok"] is True, reply.meta
        torch.testing.assert_close(reply.tensors["out"], ref.causal_attention(*(call.tensors[x] for x in "qkv"))[0])
    assert "at import tensor(" in res.output and "weights tensor(" in res.output
