"""Style twin of oelin/attention attention/scaled_dot_product_attention.py @ 16fa629df1d06692e5b03515de27ae52a5bfdc58
(the function only; the file's class does not parse), written in this project from a description
of that code's style (fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: every call raises. Inputs that are not 3-D fail the three-name unpacking with
a ValueError; 3-D inputs reach math.sqrt with math never imported (NameError), and an undefined V
would come next. Nothing about attention can be credited; SingleHead itself is built right.
Band [0, 15]; no catalogued misconception, and the feedback must quote the NameError.
"""

from typing import Optional

import torch
from torch import nn


def scaled_dot_product_attention(
    queries: torch.Tensor,
    keys: torch.Tensor,
    values: torch.Tensor,
    attn_mask: Optional[torch.Tensor] = None,  # noqa: UP045
    p_drop: float = 0.0,
    causal: bool = False,
) -> torch.Tensor:
    """Attention over (batch, length, width) tensors."""
    b_q, t_q, w_q = queries.size()
    b_k, t_k, w_k = queries.size()  # the style's slip: the key's sizes are read from the queries
    b_v, t_v, w_v = values.size()

    # Optional sanity checks, as asserts.
    assert b_q == b_k == b_v
    if attn_mask is not None:
        assert not causal
        assert tuple(attn_mask.size()) == (t_q, t_k)
    assert t_k == t_v
    assert w_q == w_k

    if causal:
        # A float lower triangle whose zeros become -inf: an additive mask.
        additive = torch.ones(t_q, t_k, dtype=torch.float32).tril(diagonal=0)
        additive = additive.masked_fill(additive == 0, -torch.inf)

    logits = (queries @ keys.transpose(-2, -1)) / math.sqrt(w_q)  # noqa: F821  (math is never imported)
    logits = logits + additive
    shares = torch.softmax(logits, dim=-1)
    return shares @ V  # noqa: F821  (the style's slip: an upper-case name that is never defined)


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
    return scaled_dot_product_attention(q, k, v, causal=True)


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
