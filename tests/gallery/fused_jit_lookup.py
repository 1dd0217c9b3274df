"""Fused attention through the JIT's operator table. Expected: refused at the dispatcher."""
import torch

op = torch._C._jit_get_operation("aten::scaled_dot_" + "product_attention")
op = op[0] if isinstance(op, tuple) else op


def causal_attention(q, k, v):
    out = op(q, k, v, is_causal=True)
    T = q.shape[-2]
    eye = torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T)
    return out, op(q, k, eye, is_causal=True)
