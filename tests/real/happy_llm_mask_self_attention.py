"""Real code: the masked self-attention snippet of a Chinese LLM tutorial ("happy-llm", chapter 2).

Source: niujiazhen/happy-llm, docs/chapter2/code/maskSelfAttention.py, commit
b363c038390a8d36a2a4880383a082794af36b8b (stored copy, retrieved 2026-11-30).
Adapted: the snippet computes `scores = x @ x.T / math.sqrt(2)` on a random (4, 2) x, adds a
fixed (4, 4) triu(-inf) mask and applies softmax; here x's two roles become q and k, and the
weights are applied to v (`attn @ v`) for the template's output. `.T`, sqrt(2) and the 4 x 4 mask
are kept. The template's shape checks and SingleHead are added.
Instructor's verdict: the snippet hard-codes its example: d_k = 2 in the scale, four positions in
the mask, and `.T` (which reverses every axis of a batched tensor). Only unbatched inputs with
exactly 4 positions work; everything else crashes or is wrong. Band [0, 30]; ids [hardcoded_shape].
"""

import math

import torch
import torch.nn.functional as F
from torch import nn


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
    scores = q @ k.T / math.sqrt(2)

    mask = torch.triu(torch.full((4, 4), float("-inf")), diagonal=1)

    masked_scores = scores + mask
    attn = F.softmax(masked_scores, dim=-1)
    return attn @ v, attn


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
