"""Correct variant: mask after exponentiating, then renormalise over the allowed sources.

The chapter says masking after normalisation is wrong "unless you carefully renormalize"; this
does the careful version. The shift is the maximum over allowed sources only, and future entries
are clamped before exp so they cannot overflow before they are zeroed.
"""

import math

import torch
from torch import nn


def causal_attention(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"inputs must be (..., T, d); got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    same = q.shape[:-1] == k.shape[:-1] and q.shape[:-1] == v.shape[:-1] and q.shape[-1] == k.shape[-1]
    if not same:
        raise ValueError(f"shape mismatch: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    t = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    row_max = scores.masked_fill(~allowed, float("-inf")).amax(dim=-1, keepdim=True)
    e = torch.exp((scores - row_max).clamp(max=0.0)) * allowed
    weights = e / e.sum(dim=-1, keepdim=True)
    return weights @ v, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
