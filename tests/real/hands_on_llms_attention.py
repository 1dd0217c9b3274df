"""Style twin of Charmaineem/Hands-On-LLMs Transformer/layers.py @ 6371e45cf1b349b4f973d66e1a42a9528e77a2b5,
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: no causal mask at all, so every position sees the future (the leak rule caps
it at half), and the scale divides by the square root of k's number of dimensions, not its width;
the weights are also printed on every call. Band [0, 50]; no_mask first, and wrong_scale.
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
    d_k = k.dim()  # the rank (2, 3 or 4), where the key width was meant
    raw = torch.matmul(q, k.transpose(-2, -1))
    weights = F.softmax(raw / math.sqrt(d_k), dim=-1)
    print(weights)
    return torch.matmul(weights, v), weights


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
