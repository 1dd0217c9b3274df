"""Style twin of Muzzammil-Hassan333/Coding-Masked-Self-Attention-in-PyTroch "Coding Masked Self-Attention in PyTroch.ipynb" @ 04aeef0ee9c92f77a8acf8f690ce586ba1ea7608
(the masked self-attention class body and the notebook's mask cell), written in this project from
a description of that code's style (fill value, mask, scale, dtype, layout, bug); no line of it is
copied.

Instructor's verdict: right only for unbatched inputs, and there only to float32 precision (the
scale goes through a float32 tensor). The fixed axis numbers 0 and 1 make batched inputs crash:
wrong for the contract's shapes, no leak observed. Band [0, 60]; no catalogued misconception has
to be named.
"""

import torch
import torch.nn.functional as F
from torch import nn

row_dim = 0
col_dim = 1


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
    n = q.shape[-2]
    hidden = torch.tril(torch.ones(n, n)) == 0  # True = future; CPU, sized per call
    sims = torch.matmul(q, k.transpose(dim0=row_dim, dim1=col_dim))
    scaled = sims / torch.tensor(k.size(col_dim) ** 0.5)
    scaled = scaled.masked_fill(mask=hidden, value=-1e9)  # -inf or the dtype's minimum work too
    percents = F.softmax(scaled, dim=col_dim)
    return torch.matmul(percents, v), percents


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
