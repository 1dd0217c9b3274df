"""Base solution for the mutation corpus, written for it and independently of reference/.

Its style differs from the chapter's on purpose, so the mutants are not one edit away from the
reference: the forbidden region is named with triu(diagonal=1) and applied with torch.where, the
scale multiplies by d_k ** -0.5, and the softmax is written out (row maximum, exp, row sum), which
gives the mutation operators a place to change the axis, drop the maximum or swap the function.
"""

import torch
from torch import nn


def _validate(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"need (..., T, d) tensors, got q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[:-2] != k.shape[:-2] or q.shape[:-2] != v.shape[:-2]:
        raise ValueError(f"batch dimensions differ: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-2] != k.shape[-2] or q.shape[-2] != v.shape[-2]:
        raise ValueError(f"sequence lengths differ: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k widths differ: q {tuple(q.shape)}, k {tuple(k.shape)}")


def causal_attention(q, k, v):
    _validate(q, k, v)
    n, d_k = q.shape[-2], q.shape[-1]
    scale = d_k ** -0.5
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    future = torch.triu(torch.ones(n, n, dtype=torch.bool, device=q.device), diagonal=1)
    scores = torch.where(future, float("-inf"), scores)
    top = scores.amax(dim=-1, keepdim=True)
    e = torch.exp(scores - top)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = torch.matmul(weights, v)
    return out, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
