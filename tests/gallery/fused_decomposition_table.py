"""Fused attention looked up by walking torch's operator registry rather than any namespace: every
operator name the dispatcher knows is listed and the math attention kernel is taken from the JIT's
table. Expected: refused at the dispatcher (recorded); forbidden_api fails and no value check pays."""
import torch

_name = next(n for n in torch._C._dispatch_get_all_op_names() if n.endswith("product_attention_math"))
_door = torch._C._jit_get_operation(_name)
_door = _door[0] if isinstance(_door, tuple) else _door


def causal_attention(q, k, v):
    out, weights = _door(q, k, v, is_causal=True)
    return out, weights
