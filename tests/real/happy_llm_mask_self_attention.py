"""Style twin of niujiazhen/happy-llm docs/chapter2/code/maskSelfAttention.py @ b363c038390a8d36a2a4880383a082794af36b8b,
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: the tutorial snippet bakes in its own example: a scale of sqrt(2), a mask for
exactly four positions and a `.T` that only transposes 2-D tensors correctly, so anything but an
unbatched four-position input crashes or comes out wrong. Band [0, 30]; hardcoded_shape, first.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


def _refuse_bad_shapes(q, k, v):
    """Raise ValueError, naming the shapes, for any input the exercise's contract rules out."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() < 2:
            raise ValueError(f"{name} must have at least 2 dimensions (T, d), got shape {tuple(t.shape)}")
    same_batch = q.shape[:-2] == k.shape[:-2] == v.shape[:-2]
    same_length = q.shape[-2] == k.shape[-2] == v.shape[-2]
    if not (same_batch and same_length):
        raise ValueError(f"q, k and v must share their leading dimensions and T; got q {tuple(q.shape)}, "
                         f"k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k need the same feature width d_k; got q {tuple(q.shape)}, k {tuple(k.shape)}")


def causal_attention(q, k, v):
    _refuse_bad_shapes(q, k, v)
    scores = q @ k.T / math.sqrt(2)  # .T reverses every axis; 2 is the snippet's d_k
    future = torch.triu(torch.full((4, 4), float("-inf")), diagonal=1)  # the snippet's 4 positions, on the CPU
    weights = F.softmax(scores + future, dim=-1)
    return weights @ v, weights


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
