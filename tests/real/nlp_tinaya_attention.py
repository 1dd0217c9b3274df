"""Style twin of CHANDRASHEKHAR234/NLP NLP/tinaya.py @ 5e02981d8fd4100f7054839703abc503acdc99cb,
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: scale and softmax are right, but there is no causal mask, so every position
sees the future; the leak rule caps it at half. A leftover self-test also runs (and prints) on
import. Band [0, 50]; no_mask, first.
"""

import torch
import torch.nn.functional as f
from torch import nn


def attention(q,k,v):
    d=q.size(-1)
    s=q@k.transpose(-2,-1)/d**0.5
    w=f.softmax(s,dim=-1)
    return w@v,w


x=torch.randn(1,4,8)
o,a=attention(x,x,x)
print(o.shape,a.shape)


def _refuse_bad_shapes(q, k, v):
    """Raise ValueError, naming the shapes, for any input the exercise's contract rules out."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() < 2:
            raise ValueError(f"{name} must have at least 2 dimensions (T, d), got shape {tuple(t.shape)}")
    same_batch = q.shape[:-2] == k.shape[:-2] == v.shape[:-2]
    same_length = q.shape[-2] == k.shape[-2] == v.shape[-2]
    if not (same_batch and same_length):
        raise ValueError(f"q, k and v must share their leading dimensions and T; got q {tuple(q.shape)}, "
                         f"k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k need the same feature width d_k; got q {tuple(q.shape)}, k {tuple(k.shape)}")


def causal_attention(q, k, v):
    _refuse_bad_shapes(q, k, v)
    return attention(q, k, v)


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
