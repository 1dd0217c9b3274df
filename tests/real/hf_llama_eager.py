"""Style twin of huggingface/transformers src/transformers/models/llama/modeling_llama.py @ 002272831fba584eb30dca9729c1be456836960a
(the eager attention and the model's causal mask, no padding, cache positions 0..T-1; the mask kept
2-D), written in this project from a description of that code's style (fill value, mask, scale,
dtype, layout, bug); no line of it is copied.

Instructor's verdict: correct math; the one finding is precision, since the softmax is computed in
float32 and cast back to the input's dtype. Band [95, 100]; dtype_downcast, first.
"""

import math

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
    width = q.shape[-1]
    dtype, device = q.dtype, q.device
    floor = torch.finfo(dtype).min
    n = q.shape[-2]
    positions = torch.arange(n, device=device)
    penalty = torch.full((n, n), fill_value=floor, dtype=dtype, device=device)
    if n != 1:
        penalty = torch.triu(penalty, diagonal=1)
    # keeps the floor strictly above the diagonal, zero elsewhere
    penalty *= torch.arange(n, device=device) > positions.reshape(-1, 1)
    logits = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(width)
    logits = logits + penalty
    probs = nn.functional.softmax(logits, dim=-1, dtype=torch.float32).to(q.dtype)
    return torch.matmul(probs, v), probs


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
