"""Correct variant: a Python loop over receiving positions.

Differs from the reference by never building a masked T x T score matrix: receiver i only ever
looks at sources 0..i, and its weight row is padded with zeros for the future afterwards.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


def causal_attention(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"too few dims: q {tuple(q.shape)} k {tuple(k.shape)} v {tuple(v.shape)}")
    if q.shape[:-2] != k.shape[:-2] or q.shape[:-2] != v.shape[:-2]:
        raise ValueError(f"batch dims differ: q {tuple(q.shape)} k {tuple(k.shape)} v {tuple(v.shape)}")
    if not (q.shape[-2] == k.shape[-2] == v.shape[-2]):
        raise ValueError(f"sequence lengths differ: q {tuple(q.shape)} k {tuple(k.shape)} v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"d_k differs: q {tuple(q.shape)} k {tuple(k.shape)}")
    t = q.shape[-2]
    if t == 0:
        return v.new_zeros(v.shape), q.new_zeros(*q.shape[:-2], 0, 0)
    scale = 1.0 / math.sqrt(q.shape[-1])
    outs, rows = [], []
    for i in range(t):
        qi = q[..., i : i + 1, :]  # (..., 1, d_k)
        s = (qi @ k[..., : i + 1, :].transpose(-2, -1)) * scale  # (..., 1, i+1)
        w = torch.softmax(s, dim=-1)
        outs.append(w @ v[..., : i + 1, :])
        rows.append(F.pad(w, (0, t - i - 1)))
    return torch.cat(outs, dim=-2), torch.cat(rows, dim=-2)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        if d_v is None:
            d_v = d_k
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
