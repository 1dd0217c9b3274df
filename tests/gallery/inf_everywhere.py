"""Infinity everywhere: shapes validated and kept, every value +inf or -inf. Expected: no inf reads as "no change"
(the leak check) or as "weights that respond" (the computes_attention gate); it scores what the
untouched stub scores."""

import torch
from torch import nn


def causal_attention(q, k, v):
    if q.dim() < 2 or q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"mismatched shapes: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    weights = (q @ k.transpose(-2, -1)) * float("inf")
    return -v * float("inf"), weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v or d_k, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
