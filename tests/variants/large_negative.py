"""Correct variant: forbidden scores filled with -1e9 instead of -inf.

Differs from the reference only in the fill value: exp(-1e9 - max) underflows to exactly 0 in
float32 and float64, so the future still gets no share (float16 cannot hold -1e9, so the fill is
clipped to the dtype's most negative finite value there). Uses torch.tril on a float matrix and
torch.where instead of masked_fill.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F


def causal_attention(q, k, v):
    shapes = f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
    if q.ndim < 2 or k.ndim < 2 or v.ndim < 2:
        raise ValueError("need (..., T, d) inputs; got " + shapes)
    if q.shape[:-1] != k.shape[:-1]:
        raise ValueError("q and k differ in batch dims or T; got " + shapes)
    if v.shape[:-1] != q.shape[:-1]:
        raise ValueError("v differs from q in batch dims or T; got " + shapes)
    if k.shape[-1] != q.shape[-1]:
        raise ValueError("q and k differ in width d_k; got " + shapes)
    t = q.shape[-2]
    scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(k.shape[-1])
    keep = torch.tril(torch.ones(t, t, device=q.device)) > 0
    very_negative = max(-1e9, torch.finfo(scores.dtype).min)
    scores = torch.where(keep, scores, torch.full_like(scores, very_negative))
    weights = F.softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
