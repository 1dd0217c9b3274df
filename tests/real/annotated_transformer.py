"""Real code: attention() and subsequent_mask() from The Annotated Transformer.

Source: harvardnlp/annotated-transformer, the_annotated_transformer.py, commit
0a91a254735c07532e23733dce8a693e504f3a08 (stored copy, retrieved 2026-11-30), functions
`attention` and `subsequent_mask`.
Adapted: both functions are kept as written (the -1e9 fill, `scores.softmax(dim=-1)`, a
(1, size, size) uint8 mask compared with 0, built on the CPU); causal_attention calls
attention(q, k, v, mask=subsequent_mask(T)) without dropout. The template's shape checks and
SingleHead are added.
Instructor's verdict: correct math (-1e9 is far below any realistic score); two small contract
slips: the (1, T, T) mask gives an unbatched (T, d) input a (1, T, ...) result, and the mask is
always built on the CPU instead of on q's device. Band [85, 99]; no catalogued id.
"""

import math

import torch
from torch import nn


def subsequent_mask(size):
    "Mask out subsequent positions."
    attn_shape = (1, size, size)
    subsequent_mask = torch.triu(torch.ones(attn_shape), diagonal=1).type(
        torch.uint8
    )
    return subsequent_mask == 0


def attention(query, key, value, mask=None, dropout=None):
    "Compute 'Scaled Dot Product Attention'"
    d_k = query.size(-1)
    scores = torch.matmul(query, key.transpose(-2, -1)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    p_attn = scores.softmax(dim=-1)
    if dropout is not None:
        p_attn = dropout(p_attn)
    return torch.matmul(p_attn, value), p_attn


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
    return attention(q, k, v, mask=subsequent_mask(q.size(-2)))


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
