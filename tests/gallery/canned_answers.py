"""Canned answers: no attention computed, the right results looked up for every public probe by a hash
of its inputs (the table is filled at test time from the public probes by tests/support/canned.py, so
no expected output is committed). Unknown inputs get the values back and uniform weights. Expected: the
grader finds the results hold on the public probes only and credits no check."""

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
    weights = torch.full((*q.shape[:-1], T), 1.0 / T, dtype=q.dtype) + touch
    return v + touch, weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v or d_k, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
