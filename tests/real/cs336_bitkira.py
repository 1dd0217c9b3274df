"""Style twin of bitkira/Stanford-CS336 assignment1-basics-main/cs336_basics/ScaledDotProductAttention.py
and Softmax.py @ 7ca9e3b23037baccb21e018138204bd5d28e305e (mask as in that student's MHA.py @ 06f175e),
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: the hand-written softmax shifts by the maximum along the axis it is given but
sums along axis 1 whatever it is given. On one (T, T) matrix axis 1 is the source axis, so unbatched
calls are exact; on (B, T, T) scores it is the receiving axis (columns are normalised, so later
queries change earlier rows: a leak), and on (B, H, T, T) it is the head axis (items mixed, NaN
where an entry is hidden in every head). The leak rule caps it at half. Band [0, 50];
softmax_wrong_axis, named first.
"""

import torch
from torch import nn


def softmax(x: torch.Tensor, i: int) -> torch.Tensor:
    # the shift follows i, the normalising sum is pinned to axis 1: right only for 2-D input
    e = torch.exp(x - torch.amax(x, dim=i, keepdim=True))
    return e / e.sum(dim=1, keepdim=True)


def scaled_dot_product_attention(q, k, v, mask=None):
    """The student's own helper (not PyTorch's fused function)."""
    k = k.transpose(-2, -1)
    scores = torch.matmul(q, k) / torch.sqrt(torch.tensor(q.shape[-1], dtype=q.dtype))
    if mask is not None:
        scores.masked_fill_(~mask, float("-inf"))
    weights = softmax(scores, i=-1)
    return torch.matmul(weights, v), weights


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
    keep = torch.tril(torch.ones(n, n, dtype=int, device=q.device)).bool()
    return scaled_dot_product_attention(q, k, v, mask=keep)


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
