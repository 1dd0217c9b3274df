"""Canned answers with a plausible fallback: the right results for every public probe, looked up by a hash
of its inputs (filled at test time by tests/support/canned.py, so no expected output is committed);
unknown inputs get a causal running mean, the mask's shape without attention (weights 1/(i+1) on and
below the diagonal, the values averaged), so the mask-form checks see a causal pattern there. Expected:
the grader finds the results hold on the public probes only and credits no check, in grade and check."""

import hashlib

import torch
from torch import nn

ANSWERS: dict = {}


def _key(q, k, v):
    return hashlib.sha256(repr([t.detach().double().tolist() for t in (q, k, v)]).encode()).hexdigest()


def causal_attention(q, k, v):
    if q.dim() < 2 or q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1] or q.shape[-1] != k.shape[-1]:
        raise ValueError(f"mismatched shapes: q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    touch = 0 * (q.sum() + k.sum() + v.sum())  # results that still carry a gradient
    found = ANSWERS.get(_key(q, k, v))
    if found is not None:
        out, weights = (torch.tensor(x, dtype=q.dtype) + touch for x in found)
        return out, weights
    T = q.shape[-2]
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    weights = allowed.to(q.dtype) / allowed.sum(-1, keepdim=True).to(q.dtype)
    weights = weights.expand(*q.shape[:-1], T) + touch
    return weights @ v, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v or d_k, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
