"""Correct variant: folds all leading dims into one batch axis and uses torch.bmm.

The correct counterpart of the batch_mixing mutant: batch items are folded into bmm's batch
axis (never into the sequence axis), so each item still attends only within itself.
"""

import math

import torch
from torch import nn


def causal_attention(q, k, v):
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"q, k, v need >= 2 dims; got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"mismatched shapes: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    *lead, t, d_k = q.shape
    d_v = v.shape[-1]
    n = math.prod(lead)
    q3, k3, v3 = q.reshape(n, t, d_k), k.reshape(n, t, d_k), v.reshape(n, t, d_v)
    scores = torch.bmm(q3, k3.transpose(1, 2)) / math.sqrt(d_k)
    allowed = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    out = torch.bmm(weights, v3)
    return out.reshape(*lead, t, d_v), weights.reshape(*lead, t, t)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
