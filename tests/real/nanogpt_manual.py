"""Style twin of karpathy/nanoGPT model.py @ 0011cd4442915c844e9b8f5c5117f25f5a7096c5 (the causal
self-attention's manual branch), written in this project from a description of that code's style
(fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: math right; the (1, 1, 1024, 1024) buffer broadcasts unbatched and singly
batched results to 4-D, an interface slip worth at most a tenth. Band [90, 99]; no catalogued
misconception has to be named.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

BLOCK = 1024
LEFT_ONLY = torch.tril(torch.ones(BLOCK, BLOCK)).view(1, 1, BLOCK, BLOCK)  # a CPU global


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
    n = q.size(-2)
    sim = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    sim = sim.masked_fill(LEFT_ONLY[:, :, :n, :n] == 0, float("-inf"))
    sim = F.softmax(sim, dim=-1)
    return sim @ v, sim


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
