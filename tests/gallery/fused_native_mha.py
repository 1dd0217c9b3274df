"""PyTorch's native multi-head attention kernel with one head and identity projections: no
forbidden name in sight. Widths are zero-padded to one head size (q scaled so the kernel's
1/sqrt(d) is the chapter's 1/sqrt(d_k)). Expected: refused at the dispatcher."""
import math

import torch
import torch.nn.functional as F


def causal_attention(q, k, v):
    if q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"shapes do not fit: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    T, dk, dv = q.shape[-2], q.shape[-1], v.shape[-1]
    d = max(dk, dv)
    pad = lambda t: F.pad(t, (0, d - t.shape[-1])).reshape(-1, T, d)  # noqa: E731
    q3, k3, v3 = pad(q * math.sqrt(d / dk)), pad(k), pad(v)
    eye = torch.eye(d, dtype=q.dtype)
    zeros = torch.zeros(d, dtype=q.dtype)
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)
    native = getattr(torch, "_native_multi_head_" + "attention")
    out, weights = native(q3, k3, v3, d, 1, torch.cat([eye, eye, eye]), torch.cat([zeros, zeros, zeros]),
                          eye, zeros, mask, True, True, 0)
    return out[..., :dv].reshape(*q.shape[:-1], dv), weights.reshape(*q.shape[:-1], T)
