"""Style twin of meta-llama/llama llama/model.py @ 0504cf440a50aab815cadccd10a46e7ba70ff344 (the
attention and the model's mask at start position 0), written in this project from a description
of that code's style (fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: math right. The softmax runs in float32 (a precision finding), and the
(1, 1, T, T) mask gives unbatched and singly batched inputs extra leading dimensions (an interface
slip; with T == 1 no mask is built and shapes survive). Band [85, 99]; dtype_downcast, first.
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
    xq, xk, xv = q, k, v
    n, head_dim = q.shape[-2], q.shape[-1]
    start = 0
    future = None
    if n > 1:
        future = torch.full((1, 1, n, n), float("-inf"), device=q.device)
        future = torch.triu(future, diagonal=start + 1).type_as(q)
    logits = torch.matmul(xq, xk.transpose(-2, -1)) / math.sqrt(head_dim)
    if future is not None:
        logits = logits + future
    probs = F.softmax(logits.float(), dim=-1).type_as(xq)
    return torch.matmul(probs, xv), probs


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
