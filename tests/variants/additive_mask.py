"""Correct variant: the chapter's additive matrix M (0 allowed, -inf forbidden) added to S.

Differs from the reference by adding a float mask to the scores instead of masked_fill, and by
scaling q before the product rather than the scores after it.
"""

import torch
from torch import nn


def _causal_bias(t, dtype, device):
    # M_ij = 0 for j <= i and -inf otherwise, exactly as written in the chapter.
    m = torch.full((t, t), float("-inf"), dtype=dtype, device=device)
    return torch.triu(m, diagonal=1)


def causal_attention(q, k, v):
    for name, x in (("q", q), ("k", k), ("v", v)):
        if x.dim() < 2:
            raise ValueError(f"{name} must have at least 2 dims, got shape {tuple(x.shape)}")
    if not (q.shape[:-1] == k.shape[:-1] == v.shape[:-1]):
        raise ValueError(f"q, k, v must agree on batch dims and T: {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k need the same d_k: {tuple(q.shape)} vs {tuple(k.shape)}")
    scale = q.shape[-1] ** -0.5
    scores = (q * scale) @ k.mT
    scores = scores + _causal_bias(q.shape[-2], scores.dtype, q.device)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        d_v = d_k if d_v is None else d_v
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v, bias=False)

    def forward(self, x):
        q, k, v = self.query(x), self.key(x), self.value(x)
        return causal_attention(q, k, v)
