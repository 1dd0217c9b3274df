"""Correct variant: SingleHead projects q, k and v with one packed matmul.

nanoGPT packs the three projections into one layer; this keeps the contract's separate
`query`, `key` and `value` Linear attributes (36 parameters at n_embd=6, d_k=d_v=2) but
concatenates their weights and runs one F.linear, then splits. causal_attention builds the
mask with torch.where against a -inf tensor.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


def causal_attention(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2 or q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1]:
        raise ValueError(f"q, k, v must be (..., T, d) with equal batch dims and T; got "
                         f"{tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must share d_k; got {tuple(q.shape)} and {tuple(k.shape)}")
    t = q.size(-2)
    scores = q.matmul(k.transpose(-2, -1)).div(math.sqrt(q.size(-1)))
    allowed = torch.tril(torch.ones(t, t, dtype=torch.bool, device=q.device))
    scores = torch.where(allowed, scores, scores.new_tensor(float("-inf")))
    weights = scores.softmax(-1)
    return weights.matmul(v), weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.d_k = d_k
        self.d_v = d_k if d_v is None else d_v
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, self.d_v, bias=False)

    def forward(self, x):
        w = torch.cat([self.query.weight, self.key.weight, self.value.weight], dim=0)
        q, k, v = F.linear(x, w).split([self.d_k, self.d_k, self.d_v], dim=-1)
        return causal_attention(q, k, v)
