"""PyTorch's native multi-head attention kernel with one head and identity projections: no
forbidden name in sight. Expected: refused at the dispatcher."""
import torch


def causal_attention(q, k, v):
    T, d = q.shape[-2], q.shape[-1]
    if v.shape[-1] != d:
        raise ValueError("native multi-head attention needs d_v == d_k")
    q3, k3, v3 = (t.reshape(-1, T, d) for t in (q, k, v))
    eye = torch.eye(d, dtype=q.dtype)
    w_qkv = torch.cat([eye, eye, eye])
    b_qkv = torch.zeros(3 * d, dtype=q.dtype)
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)
    native = getattr(torch, "_native_multi_head_" + "attention")
    out, weights = native(q3, k3, v3, d, 1, w_qkv, b_qkv, eye, torch.zeros(d, dtype=q.dtype), mask,
                          True, True, 0)
    return out.reshape(q.shape), weights.reshape(*q.shape[:-1], T)
