"""Style twin of lucidrains/x-transformers x_transformers/attend.py @ 004dd51c1ba44284cdd24b1b9792c83e0039ac24
(the non-flash causal path with default options), written in this project from a description of
that code's style (fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: correct math; the softmax is computed in float32 and cast back, a precision
finding only. Band [95, 100]; dtype_downcast, first.
"""

import torch
import torch.nn.functional as F
from torch import einsum, nn


def _above_diagonal(n_rows, n_cols, device):
    """Boolean (n_rows, n_cols), True at the sources a receiver may not read (aligned to the end)."""
    allowed_offset = n_cols - n_rows + 1
    return torch.triu(torch.ones(n_rows, n_cols, dtype=torch.bool, device=device), diagonal=allowed_offset)


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
    # Similarities by an einsum over the feature axis, scaled afterwards by d_k ** -0.5.
    logits = einsum("...qf,...kf->...qk", q, k) * (q.shape[-1] ** -0.5)
    n_q, n_k = logits.shape[-2:]
    in_dtype = logits.dtype
    # The largest finite negative number of the scores' dtype stands in for -inf.
    logits = logits.masked_fill(_above_diagonal(n_q, n_k, q.device), -torch.finfo(in_dtype).max)
    # Normalised in float32 whatever the input's dtype, then cast back.
    shares = F.softmax(logits, dim=-1, dtype=torch.float32).to(in_dtype)
    return einsum("...qk,...kf->...qf", shares, v), shares


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
