"""Real code: lucidrains' x-transformers Attend (the non-flash path, causal=True).

Source: lucidrains/x-transformers, x_transformers/attend.py, commit
004dd51c1ba44284cdd24b1b9792c83e0039ac24 (stored copy, retrieved 2026-11-30), Attend.forward with
the defaults (no flash, no talking heads, no qk_norm, so attn_fn = softmax(dim=-1,
dtype=torch.float32)) and create_causal_mask.
Adapted: only the causal branch is kept; the einsum equations 'b h i d, b h j d -> b h i j' and
'b h i j, b h j d -> b h i d' are generalised to '... i d' form so any batch shape is accepted (the
computation is unchanged). The -finfo.max fill, the float32 softmax and `attn.type(dtype)` are kept.
The template's shape checks and SingleHead are added.
Instructor's verdict: correct math; the softmax is computed in float32 and cast back, so float64
inputs are right to about 1e-7: a precision finding only. Band [95, 100]; ids [dtype_downcast].
"""

import torch
import torch.nn.functional as F
from torch import einsum, nn


def create_causal_mask(i, j, device):
    return torch.ones((i, j), device = device, dtype = torch.bool).triu(j - i + 1)


def _check_shapes(q, k, v):
    # Added for the template's contract; not part of the original.
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() < 2:
            raise ValueError(f"{name} needs at least 2 dimensions, got shape {tuple(t.shape)}")
    if not (q.shape[:-2] == k.shape[:-2] == v.shape[:-2]) or not (q.shape[-2] == k.shape[-2] == v.shape[-2]):
        raise ValueError(f"batch dimensions or lengths differ: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k widths differ: q {tuple(q.shape)}, k {tuple(k.shape)}")


def causal_attention(q, k, v):
    _check_shapes(q, k, v)
    device = q.device
    scale = q.shape[-1] ** -0.5

    sim = einsum('... i d, ... j d -> ... i j', q, k)
    sim = sim * scale

    i, j, dtype = *sim.shape[-2:], sim.dtype
    mask_value = -torch.finfo(sim.dtype).max

    causal_mask = create_causal_mask(i, j, device = device)
    sim = sim.masked_fill(causal_mask, mask_value)

    attn = F.softmax(sim, dim = -1, dtype = torch.float32)
    attn = attn.type(dtype)

    out = einsum('... i j, ... j d -> ... i d', attn, v)
    return out, attn


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
