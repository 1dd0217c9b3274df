"""Real code: nanoGPT's manual (non-flash) attention path.

Source: karpathy/nanoGPT, model.py, commit 0011cd4442915c844e9b8f5c5117f25f5a7096c5 (stored copy,
retrieved 2026-11-30), class CausalSelfAttention, `else:  # manual implementation of attention`.
Licence: MIT.
Adapted: the head split, dropout and output projection are dropped; the body of the manual branch
is kept as written, including the mask buffer registered as a (1, 1, block_size, block_size) view
and sliced with `[:, :, :T, :T]` (block_size = 1024, GPTConfig's default). The template's shape
checks and SingleHead are added.
Instructor's verdict: the math is right, but the 4-D mask buffer broadcasts every result to 4-D, so
an unbatched (T, d) input returns out of shape (1, 1, T, d_v) and a (B, T, d) input returns
(1, B, T, d_v): an interface slip (extra leading dimensions), at most 10% off. Band [90, 99]; no
catalogued misconception names it.
"""

import math

import torch
from torch import nn
from torch.nn import functional as F

block_size = 1024
# causal mask to ensure that attention is only applied to the left in the input sequence
bias = torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size)


def _check_shapes(q, k, v):
    # Added for the template's contract; not part of the original.
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() < 2:
            raise ValueError(f"{name} needs at least 2 dimensions, got shape {tuple(t.shape)}")
    if not (q.shape[:-2] == k.shape[:-2] == v.shape[:-2]) or not (q.shape[-2] == k.shape[-2] == v.shape[-2]):
        raise ValueError(f"batch dimensions or lengths differ: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k widths differ: q {tuple(q.shape)}, k {tuple(k.shape)}")


def causal_attention(q, k, v):
    _check_shapes(q, k, v)
    T = q.size(-2)
    # manual implementation of attention
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
    att = att.masked_fill(bias[:, :, :T, :T] == 0, float('-inf'))
    att = F.softmax(att, dim=-1)
    y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
    return y, att


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
