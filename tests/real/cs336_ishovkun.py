"""Real code: a student's CS336 assignment 1 ScaledDotProductAttention module and causal mask.

Source: ishovkun/assignment1-basics, cs336_basics/transformer_lm/attention.py and
cs336_basics/transformer_lm/softmax.py, commit 03a3e285b497de7d8f16a7a9c30240a53c6f09c1 (stored
copy, retrieved 2026-11-30): ScaledDotProductAttention.forward, Softmax, and the mask
MultiHeadAttention.forward builds (`torch.tril(torch.ones(seq_len, seq_len)) == 1`, then
`.to(x.device)`).
Adapted: einops is not available to submissions, so `einsum(Q, K, "... s1 d, ... s2 d -> ... s1
s2")` is written torch.einsum("...id,...jd->...ij", ...), likewise for S and V; the module returns
(out, weights) for the template. The in-place `qk.masked_fill_(mask == False, ...)` is kept. The
template's shape checks and SingleHead are added.
Instructor's verdict: correct. Band [100, 100]; ids [].
"""

import torch
from torch import nn


class Softmax(torch.nn.Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return torch.softmax(x, dim=self.dim)


class ScaledDotProductAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, Q, K, V, mask=None):
        scale = (K.shape[-1] ** 0.5)**(-1)
        qk = scale * torch.einsum("...id,...jd->...ij", Q, K)

        if mask is not None:
            qk.masked_fill_(mask == False, float("-inf"))  # in-place  # noqa: E712

        softmax = Softmax(-1)
        S = softmax(qk)
        ret = torch.einsum("...ij,...jd->...id", S, V)
        return ret, S


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
    seq_len = q.shape[-2]
    mask = torch.tril(torch.ones(seq_len, seq_len)) == 1
    mask = mask.to(q.device)
    attn = ScaledDotProductAttention()
    return attn(q, k, v, mask)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
