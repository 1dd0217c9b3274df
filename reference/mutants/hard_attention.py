"""One-hot argmax weights instead of softmax (“attention selects one token”).

Ordinary softmax attention mixes all permitted values according to their weights. Taking the
argmax selects a single source, so the final worked-example row becomes [0, 0, 1] and its output
[6, 2] instead of the blend [26/7, 16/7]; the argmax also passes no gradient to queries and
keys.

Diagnosis: hard_attention
Section: Common mistakes and misconceptions
Kind: behaviour
"""

import math

import torch
from torch import nn


def causal_attention(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"need at least 2 dims, got q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1]:
        raise ValueError(f"batch dims and T must match, got q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k feature widths differ: q {tuple(q.shape)}, k {tuple(k.shape)}")
    T = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~allowed, float("-inf"))
    best = scores.argmax(dim=-1)
    weights = torch.nn.functional.one_hot(best, T).to(v.dtype)
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
