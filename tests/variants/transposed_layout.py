"""Correct variant: scores computed in source-by-receiver layout, then transposed back.

Differs from the reference by building K Q^T (rows = sources), so the allowed entries there
form the UPPER triangle; the matrix is transposed to row-as-receiver before the softmax. A
reminder that the triangle's appearance depends on the axis convention.
"""

import math

import torch
from torch import nn


def causal_attention(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"expected at least 2-D q, k, v; got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if tuple(q.shape[:-1]) != tuple(k.shape[:-1]) or tuple(q.shape[:-1]) != tuple(v.shape[:-1]):
        raise ValueError(f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}: batch dims and T must be equal")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q {tuple(q.shape)} and k {tuple(k.shape)}: feature widths must be equal")
    t = q.shape[-2]
    by_source = (k @ q.transpose(-2, -1)) / math.sqrt(q.shape[-1])  # [..., j, i]
    # In this layout source j may feed receiver i when j <= i: the upper triangle.
    visible = torch.ones(t, t, dtype=torch.bool, device=q.device).triu()
    by_source = by_source.masked_fill(~visible, float("-inf"))
    weights = torch.softmax(by_source.transpose(-2, -1), dim=-1)
    return weights @ v, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
