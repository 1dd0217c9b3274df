"""Real code: a student's CS336 assignment 1 scaled_dot_product_attention and softmax.

Source: bitkira/Stanford-CS336, assignment1-basics-main/cs336_basics/ScaledDotProductAttention.py
(the version with `if mask is not None: out.masked_fill_(~mask, ...)`, as returned by code search on
2026-11-30; the index holds two versions, this one without a recorded commit) and
assignment1-basics-main/cs336_basics/Softmax.py, commit 7ca9e3b23037baccb21e018138204bd5d28e305e;
the mask is built as the student's MHA.py builds it (commit 06f175ead0a33e4c3a5a3e1ff46bb1e6a9bb4a4b:
`torch.tril(torch.ones(T, T, dtype=int, device=...)).bool()`).
Adapted: einops is not available to submissions, so `rearrange(k, "... seq_len d_k -> ... d_k
seq_len")` is written k.transpose(-2, -1); the sys.path hack and imports between the student's
files are inlined; the last line returns the weights it multiplies by v as well (the template's
pair). The function keeps the student's name scaled_dot_product_attention (a helper of
the student's own, not PyTorch's). The template's shape checks and SingleHead are added.
Instructor's verdict: the softmax subtracts the max over dim=i but SUMS over dim=1; for a 2-D
(T, T) score matrix dim 1 is the source axis and all is well, but on batched scores dim 1 is the
receiving axis (3-D) or the head axis (4-D): rows are normalised by column sums that include later
rows (future queries reach earlier outputs) or by sums over other batch items (with NaN where all
of them are masked). Leak: at most half.
Band [0, 50]; ids [softmax_wrong_axis].
"""

import torch
from torch import nn


def softmax(x, i):
    return torch.exp(x - torch.max(x, dim=i, keepdim=True)[0]) / torch.sum(torch.exp(x - torch.max(x, dim=i, keepdim=True)[0]), dim=1, keepdim=True)


def scaled_dot_product_attention(q, k, v, mask=None):
    k = k.transpose(-2, -1)
    out = torch.matmul(q, k) / torch.sqrt(torch.tensor(q.shape[-1], dtype=q.dtype))
    if mask is not None:
        out.masked_fill_(~mask,float('-inf'))
    weights = softmax(out, i=-1)
    return torch.matmul(weights, v), weights


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
    mask = torch.tril(torch.ones(T, T, dtype=int, device=q.device)).bool()
    return scaled_dot_product_attention(q, k, v, mask=mask)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
