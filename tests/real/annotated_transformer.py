"""Style twin of harvardnlp/annotated-transformer the_annotated_transformer.py @ 0a91a254735c07532e23733dce8a693e504f3a08,
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: the arithmetic is right, and a fill of -1e9 sits so far below any real score
that it behaves as minus infinity. Two small interface slips: the mask is (1, T, T), so an
unbatched (T, d) call comes back with an extra leading axis of size 1, and the mask is always made
on the CPU, not on q's device. Band [85, 99]; no misconception has to be named.
"""

import math

import torch
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


def lower_triangle_allowed(n):
    """(1, n, n) bool, True where a query may look: on and below the diagonal. Made on the CPU."""
    ahead = torch.triu(torch.ones(1, n, n), diagonal=1).to(torch.uint8)
    return ahead == 0


def weigh_values(queries, keys, values, allowed=None, drop=None):
    width = queries.size(-1)
    logits = torch.matmul(queries, keys.transpose(-2, -1)) / math.sqrt(width)
    if allowed is not None:
        logits = logits.masked_fill(allowed == 0, -1e9)
    probs = logits.softmax(dim=-1)
    if drop is not None:
        probs = drop(probs)
    return torch.matmul(probs, values), probs


def causal_attention(q, k, v):
    _refuse_bad_shapes(q, k, v)
    return weigh_values(q, k, v, allowed=lower_triangle_allowed(q.size(-2)))


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
