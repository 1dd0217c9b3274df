"""Real code: a student's CS336 assignment 1 softmax and scaled_dot_product_attention.

Source: philippmwirth/cs336-assignment1-basics, cs336_basics/transformer/utils.py, commit
f4216aa55155a5b7fc156b182a07a3da915248e9 (stored copy, retrieved 2026-11-30).
Adapted: einops is not available to submissions, so the two einops.einsum calls are written as
torch.einsum with the same contractions; the function returns (out, weights) for the template; the
(s, s) bool mask its signature asks for is built as a lower triangle on q's device. The boolean
index assignment `qk_scaled[..., ~mask] = -math.inf` is kept. The function keeps the student's name
scaled_dot_product_attention (their own helper, not PyTorch's). The template's shape checks and
SingleHead are added.
Instructor's verdict: correct. Band [100, 100]; ids [].
"""

import math

import torch
from torch import nn


def softmax(x, dim):
    y = (x - x.max(dim=dim, keepdim=True).values).exp()
    return y / y.sum(dim=dim, keepdim=True)


def scaled_dot_product_attention(q, k, v, mask):
    d_k = k.shape[-1]
    qk_scaled = torch.einsum("...id,...jd->...ij", q, k) / math.sqrt(d_k)
    qk_scaled[..., ~mask] = -math.inf
    weights = softmax(x=qk_scaled, dim=-1)
    return torch.einsum("...ij,...jd->...id", weights, v), weights


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
    T = q.shape[-2]
    mask = torch.tril(torch.ones(T, T, dtype=torch.bool, device=q.device))
    return scaled_dot_product_attention(q, k, v, mask)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
