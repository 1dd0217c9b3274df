"""Flattens batch and time into one long sequence, so batch items attend to each other.

The leading dimension holds independent examples that must not attend to each other. This
submission joins all items into one sequence of B*T positions with a causal mask over it, so
item b also sees every earlier item: causality inside each item holds, but outputs change when
another item changes and the returned weight rows of later items do not sum to one. Unbatched
input is handled correctly.

Diagnosis: batch_mixing
Section: Part 4: connect to trainable code
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
    batch = q.shape[:-2]
    # treat the whole batch as one long sequence: faster than a batched matmul
    qf = q.reshape(-1, q.shape[-1])
    kf = k.reshape(-1, k.shape[-1])
    vf = v.reshape(-1, v.shape[-1])
    n = qf.shape[0]
    scores = (qf @ kf.T) / math.sqrt(q.shape[-1])
    allowed = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~allowed, float("-inf"))
    big = torch.softmax(scores, dim=-1)
    out = (big @ vf).reshape(*batch, T, v.shape[-1])
    # each item's own T x T block of the big weight matrix
    blocks = [big[b * T:(b + 1) * T, b * T:(b + 1) * T] for b in range(n // T)]
    weights = torch.stack(blocks).reshape(*batch, T, T)
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
