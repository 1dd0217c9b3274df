"""The required function name is misspelled (causal_atention).

The math is right, but the function is called `causal_atention`, so the name the grader looks
up, `causal_attention`, does not exist. SingleHead still works because it calls the misspelled
name.

Diagnosis: missing_function
Section: Part 2: the full head
Kind: submission
"""

import math

import torch
from torch import nn


def causal_atention(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"need at least 2 dims, got q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1]:
        raise ValueError(f"batch dims and T must match, got q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k feature widths differ: q {tuple(q.shape)}, k {tuple(k.shape)}")
    T = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        if d_v is None:
            d_v = d_k
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v, bias=False)

    def forward(self, x):
        return causal_atention(self.query(x), self.key(x), self.value(x))
