"""Style twin of karpathy/ng-video-lecture gpt.py @ 0ceb0055aad7a7b255730be650dd667d6daffd9f (the
single attention head), written in this project from a description of that code's style (fill
value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: wrong math, no leak: scores are scaled by 1/sqrt(384), the embedding width,
instead of 1/sqrt(d_k), the known slip of this version of the lecture file. Band [30, 85];
wrong_scale, first.
"""

import torch
import torch.nn.functional as F
from torch import nn

block_size = 256  # longest context
n_embd = 384  # embedding width, not the head's
tril = torch.tril(torch.ones(block_size, block_size))


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
    T = q.shape[-2]
    C = n_embd  # the module constant; SingleHead's own n_embd is never read here
    affinity = q @ k.transpose(-2, -1) * C ** -0.5
    affinity = affinity.masked_fill(tril[:T, :T] == 0, float("-inf"))
    affinity = F.softmax(affinity, dim=-1)
    return affinity @ v, affinity


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
