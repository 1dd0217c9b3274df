"""Style twin of ishovkun/assignment1-basics cs336_basics/transformer_lm/attention.py and softmax.py
@ 03a3e285b497de7d8f16a7a9c30240a53c6f09c1, written in this project from a description of that
code's style (fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: correct (ellipsis einsums take any batch dimensions; -inf before the softmax).
Band [100, 100]; no diagnosis at all.
"""

import torch
from torch import nn


class Softmax(nn.Module):
    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.softmax(x, dim=self.dim)


class ScaledDotProductAttention(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, Q, K, V, mask=None):
        inv_root = (K.shape[-1] ** 0.5) ** -1
        logits = inv_root * torch.einsum("...id,...jd->...ij", Q, K)
        if mask is not None:
            logits.masked_fill_(mask == False, float("-inf"))  # noqa: E712
        probs = Softmax(-1)(logits)
        return torch.einsum("...ij,...jd->...id", probs, V), probs


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
    seq_len = q.shape[-2]
    visible = (torch.tril(torch.ones(seq_len, seq_len)) == 1).to(q.device)
    return ScaledDotProductAttention()(q, k, v, visible)


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
