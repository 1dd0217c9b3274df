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


def _filled_with_minus_inf(template):
    """A tensor of template's shape and dtype holding -inf, filled in float32 first."""
    return template.float().fill_(float("-inf")).type_as(template)


def _normalise(scores, axis, legacy_export=False):
    # The export path upcasts the input; the usual path asks softmax for a float32 result.
    if legacy_export:
        return F.softmax(scores.float(), dim=axis)
    return F.softmax(scores, dim=axis, dtype=torch.float32)


def _future_penalty(like, size):
    """Additive (size, size) mask: 0 on and below the diagonal, -inf above; like's dtype and device."""
    return torch.triu(_filled_with_minus_inf(torch.zeros([size, size])), 1).to(like)


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
    factor = q.size(-1) ** -0.5
    penalty = _future_penalty(q, q.size(-2))  # built before q is scaled
    q *= factor  # in place: the caller's q changes
    energies = torch.bmm(q, k.transpose(1, 2))  # three dimensions only, as bmm requires
    energies += penalty.unsqueeze(0)
    shares = _normalise(energies, axis=-1).type_as(energies)
    return torch.bmm(shares, v), shares


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
