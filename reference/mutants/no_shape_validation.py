"""No shape checks: mismatched batches silently broadcast.

The attention math is right, but nothing checks that q, k and v share their batch dimensions and
sequence length, so a (1, T, d) key broadcasts against a (2, T, d) query and unrelated batches
mix without any error. The contract asks for a ValueError naming the shapes.

Diagnosis: no_shape_validation
Section: Part 2: the full head
Kind: behaviour
"""

import math

import torch
from torch import nn


def causal_attention(q, k, v):
    T = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        if d_v is None:
            d_v = d_k
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
