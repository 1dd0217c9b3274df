"""Correct, with a helper the student named scaled_dot_product_attention themselves.

A name is not a call into PyTorch's fused kernel: the forbidden-API check must not punish a
student for naming their own function after the operation it computes.
"""

import math

import torch
from torch import nn


def scaled_dot_product_attention(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    T = q.shape[-2]
    future = torch.ones(T, T, dtype=torch.bool, device=q.device).triu(1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return weights @ v, weights


def causal_attention(q, k, v):
    if min(q.dim(), k.dim(), v.dim()) < 2:
        raise ValueError(f"need (..., T, d) inputs, got q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if not (q.shape[:-1] == k.shape[:-1] == v.shape[:-1]):
        raise ValueError(f"batch dims and T must match: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k widths differ: q {tuple(q.shape)}, k {tuple(k.shape)}")
    return scaled_dot_product_attention(q, k, v)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v or d_k, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
