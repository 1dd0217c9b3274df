"""An example student submission with a classic bug, graded by `make demo`.

It fills forbidden scores with 0 instead of -inf, so the first position still takes a share of
every future source. The grader should say so in the chapter's words.
"""

import math

import torch
from torch import nn


def causal_attention(q, k, v):
    if q.shape[:-2] != k.shape[:-2] or q.shape[:-2] != v.shape[:-2] or not (q.shape[-2] == k.shape[-2] == v.shape[-2]):
        raise ValueError(f"shapes do not match: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k widths differ: q {tuple(q.shape)}, k {tuple(k.shape)}")
    T = q.shape[-2]
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    allowed = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~allowed, 0.0)  # the bug: exp(0) = 1 still lets future sources in
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v or d_k, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
