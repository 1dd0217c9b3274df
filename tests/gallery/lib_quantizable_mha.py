"""The quantizable MultiheadAttention's own forward (`torch.ao.nn.quantizable`): one head,
identity projections, a causal mask. It computes attention in Python with bmm and softmax, so
no fused operator is ever reached. Expected: refused at call (found by the walk over torch's
modules), named by forbidden_api; the file scores 0."""
import torch
from torch.ao.nn import quantizable


def causal_attention(q, k, v):
    d, T = q.shape[-1], q.shape[-2]
    if v.shape[-1] != d:
        raise ValueError("this trick needs d_v == d_k")
    mha = quantizable.MultiheadAttention(d, 1, bias=False, batch_first=True).to(q.dtype)
    with torch.no_grad():
        for lin in (mha.linear_Q, mha.linear_K, mha.linear_V, mha.out_proj):
            lin.weight.copy_(torch.eye(d, dtype=q.dtype))
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)
    flat = [t.reshape(-1, T, d) for t in (q, k, v)]
    out, weights = mha(*flat, attn_mask=mask, need_weights=True)
    return out.reshape(v.shape), weights.reshape(*q.shape[:-1], T)
