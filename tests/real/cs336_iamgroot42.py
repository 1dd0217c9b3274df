"""Real code: a student's CS336 assignment 1 softmax and attention helpers.

Source: iamgroot42/assignment1-basics, cs336_basics/utils.py, commit
b9cbde537c09a9195dae6b97d183e04095ad09c4 (stored copy, retrieved 2026-11-30): softmax, attention.
Adapted: both functions kept as written (including the in-place `QK.masked_fill_(~mask, ...)`);
`return out` becomes `return out, QK` for the template's pair; the causal mask the caller passes
is built as a bool lower triangle on q's device (the caller is not in this file). The template's
shape checks and SingleHead are added.
Instructor's verdict: correct. Band [100, 100]; ids [].
"""

import torch
from torch import nn


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    x_ = x - x.max(dim=dim, keepdim=True).values
    exp_x = torch.exp(x_)
    return exp_x / exp_x.sum(dim=dim, keepdim=True)


def attention(Q: torch.Tensor, K: torch.Tensor,
              V: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
    d_k = Q.shape[-1]
    # We need to perform softmax(Q @ K / sqrt(d)) @ V
    QK = Q.matmul(K.transpose(-2, -1))
    # Scale outputs
    QK = QK / (d_k ** 0.5)
    # Apply mask (fill out everything not in mask with inf)
    QK.masked_fill_(~mask, float('-inf'))
    # Apply softmax
    QK = softmax(QK, dim=-1)
    # Multiply by V
    out = QK.matmul(V)
    return out, QK


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
    mask = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    return attention(q, k, v, mask)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
