"""Style twin of karpathy/nanoGPT model.py @ 0011cd4442915c844e9b8f5c5117f25f5a7096c5 (the causal
self-attention's fused branch), written in this project from a description of that code's style
(fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: every number is right, but the exercise forbids the fused scaled dot-product
attention call, and here it does all of the work (twice: once more with an identity as the values,
to read the weights back). Band [0, 50]; forbidden_api, first.
"""

import torch
from torch import nn


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
    n = q.size(-2)
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0, is_causal=True)
    # the fused call returns no weights: attend over an identity to get them
    eye = torch.eye(n, dtype=v.dtype, device=v.device).expand(*v.shape[:-1], n)
    weights = torch.nn.functional.scaled_dot_product_attention(q, k, eye, attn_mask=None, dropout_p=0,
                                                               is_causal=True)
    return out, weights


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
