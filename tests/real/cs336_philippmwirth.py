"""Style twin of philippmwirth/cs336-assignment1-basics cs336_basics/transformer/utils.py
@ f4216aa55155a5b7fc156b182a07a3da915248e9, written in this project from a description of that
code's style (fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: correct (einsums over any batch dimensions, -inf set by boolean indexing,
a stable softmax). Band [100, 100]; no diagnosis at all.
"""

import math

import torch
from torch import nn


def softmax(x, dim):
    z = (x - x.max(dim=dim, keepdim=True).values).exp()
    return z / z.sum(dim=dim, keepdim=True)


def scaled_dot_product_attention(q, k, v, mask):
    """The student's own helper (not PyTorch's fused function); mask is required."""
    d_k = k.shape[-1]
    logits = torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(d_k)
    logits[..., ~mask] = -math.inf
    probs = softmax(x=logits, dim=-1)
    return torch.einsum("...ij,...jd->...id", probs, v), probs


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
    n = q.shape[-2]
    lower = torch.tril(torch.ones(n, n, dtype=torch.bool, device=q.device))
    return scaled_dot_product_attention(q, k, v, lower)


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
