"""Real code: a learner's scaled dot-product attention module ("Hands-On LLMs").

Source: Charmaineem/Hands-On-LLMs, Transformer/layers.py, commit
6371e45cf1b349b4f973d66e1a42a9528e77a2b5 (stored copy, retrieved 2026-11-30), Attention.forward.
Adapted: the body of forward is kept as written, including `d_k = k.dim()` and the debugging
`print(s)`; `return output` becomes `return output, s` for the template's pair. The template's
shape checks and SingleHead are added.
Instructor's verdict: no causal mask at all (every position sees the future), and the scale is
sqrt(k.dim()), the number of DIMENSIONS of k (2 for an unbatched input, 3 or 4 when batched), not
sqrt(d_k). Leak: at most half. Band [0, 50]; ids [no_mask (first), wrong_scale].
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
    d_k = k.dim()
    dot = torch.matmul(q, k.transpose(-2, -1))
    s = F.softmax(dot/math.sqrt(d_k), dim=-1)
    print(s)
    output = torch.matmul(s, v)
    return output, s


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
