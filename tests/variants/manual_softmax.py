"""Correct variant: a hand-written, max-subtracted softmax.

Differs from the reference by spelling softmax out: mask with -inf, subtract the row maximum
(never -inf, because the diagonal is always allowed), exponentiate, divide by the row sum.
"""

import math

import torch
from torch import nn


def _softmax_last(x):
    shifted = x - x.max(dim=-1, keepdim=True).values
    e = shifted.exp()
    return e / e.sum(dim=-1, keepdim=True)


def causal_attention(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"need at least 2 dims: q={tuple(q.shape)} k={tuple(k.shape)} v={tuple(v.shape)}")
    if q.shape[:-1] != k.shape[:-1] or v.shape[:-1] != q.shape[:-1]:
        raise ValueError(f"batch dims / T mismatch: q={tuple(q.shape)} k={tuple(k.shape)} v={tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k widths differ: q={tuple(q.shape)} k={tuple(k.shape)}")
    t = q.shape[-2]
    idx = torch.arange(t, device=q.device)
    allowed = idx[None, :] <= idx[:, None]  # source j <= receiver i
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    weights = _softmax_last(scores.masked_fill(~allowed, float("-inf")))
    return weights @ v, weights


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
