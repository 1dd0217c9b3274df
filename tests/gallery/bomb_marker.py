"""A correct file (a copy of tests/variants/einsum_triu.py) that carries a marker the boundary
tests key a planted grader failure on (bomb): the grader failing on one file must become that
file's report, never the run's end."""

import math

import torch
from torch import nn


def causal_attention(q, k, v):
    if min(q.ndim, k.ndim, v.ndim) < 2:
        raise ValueError(f"expected (..., T, d) tensors, got {list(q.shape)}, {list(k.shape)}, {list(v.shape)}")
    if q.shape[:-1] != k.shape[:-1] or k.shape[:-1] != v.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"incompatible shapes q={list(q.shape)} k={list(k.shape)} v={list(v.shape)}")
    t, d_k = q.shape[-2], q.shape[-1]
    scores = torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(d_k)
    forbidden = torch.ones(t, t, dtype=torch.bool, device=q.device).triu(1)
    weights = scores.masked_fill(forbidden, -math.inf).softmax(dim=-1)
    out = torch.einsum("...ij,...jd->...id", weights, v)
    return out, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
