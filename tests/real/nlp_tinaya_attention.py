"""Real code: a learner's attention function with its leftover self-test.

Source: CHANDRASHEKHAR234/NLP, NLP/tinaya.py, commit 5e02981d8fd4100f7054839703abc503acdc99cb
(stored copy, retrieved 2026-11-30).
Adapted: the function is kept as written and called by causal_attention; the module-level
self-test (random q, a call, a print) is kept too, so importing the file prints two shapes. The
template's shape checks and SingleHead are added.
Instructor's verdict: correct scaling and softmax, but no causal mask: every position attends to
the future. Leak: at most half. Band [0, 50]; ids [no_mask].
"""

import torch
import torch.nn.functional as f
from torch import nn


def attention(q,k,v):
    d = q.size(-1)
    scores = q @ k.transpose(-2,-1) / d**0.5
    attn = f.softmax(scores,dim=-1)
    return attn @ v, attn

q = torch.randn(1,4,8)
out, attn = attention(q, q, q)
print(out.shape,attn.shape)


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
    return attention(q, k, v)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
