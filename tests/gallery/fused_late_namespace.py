"""Fused attention through an operator looked up only inside the call (after any tripwire was
set), by a name built at run time. Expected: refused at the dispatcher."""
import torch


def causal_attention(q, k, v):
    op = getattr(torch.ops.aten, "_scaled_dot_product_" + "flash_attention_for_cpu")
    lead, T = q.shape[:-2], q.shape[-2]
    q4, k4, v4 = (t.reshape(-1, 1, T, t.shape[-1]) for t in (q, k, v))
    out = op(q4, k4, v4, is_causal=True)[0].reshape(*lead, T, v.shape[-1])
    weights = torch.ones(T, T, dtype=q.dtype).tril()
    return out, (weights / weights.sum(-1, keepdim=True)).expand(*lead, T, T)
