"""Style twin of rasbt/LLMs-from-scratch ch03/02_bonus_efficient-multihead-attention/ch03.py @ 3f1dfc9bb6fc85931a68acfdda01f22b82bed743
(the causal attention class, with the buffer size the chapter's notebook passes: six tokens),
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: correct up to six positions, but the mask is sized for the book's six-token
example, so longer sequences crash: wrong for general T, no leak. Band [10, 85]; hardcoded_shape,
first.
"""

import torch
from torch import nn

block_size = 6  # the notebook's context length
future = torch.triu(torch.ones(block_size, block_size), diagonal=1)  # 1 marks the future; CPU


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
    keys, queries, values = k, q, v
    n_tokens = q.shape[-2]
    scores = queries @ keys.transpose(-2, -1)
    # trailing underscore: fills in place
    scores.masked_fill_(future.bool()[:n_tokens, :n_tokens], -torch.inf)
    weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
    return weights @ values, weights


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
