"""Style twin of facebookresearch/fairseq fairseq/modules/multihead_attention.py @ 00bc279894ab6ed3641b0f791acc578ac2083584
(self-attention without incremental state or padding mask, with the softmax and -inf helpers of
fairseq/utils.py and the decoder's future mask), written in this project from a description of
that code's style (fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: no leak, three findings. q is scaled in place, so the caller's tensor changes
(and a leaf q that requires grad raises); the batched matrix product takes exactly one batch
dimension, so unbatched and doubly batched inputs crash; the softmax runs in float32, which costs
precision on float64 inputs. Band [20, 90]; inputs_mutated and dtype_downcast, neither first.
"""

import torch
import torch.nn.functional as F
from torch import nn


def _minus_infinity_like(t):
    return t.float().fill_(float("-inf")).type_as(t)


def _softmax(x, dim, onnx_trace=False):
    if onnx_trace:
        return F.softmax(x.float(), dim=dim)
    return F.softmax(x, dim=dim, dtype=torch.float32)


def _future_penalty(like, size):
    """Additive (size, size) mask: 0 on and below the diagonal, -inf above; like's dtype and device."""
    return torch.triu(_minus_infinity_like(torch.zeros([size, size])), 1).to(like)


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
    scaling = q.size(-1) ** -0.5
    penalty = _future_penalty(q, q.size(-2))  # built before q is scaled
    q *= scaling  # in place: the caller's q changes
    logits = torch.bmm(q, k.transpose(1, 2))
    logits += penalty.unsqueeze(0)
    probs_float = _softmax(logits, dim=-1)
    probs = probs_float.type_as(logits)
    return torch.bmm(probs, v), probs


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
