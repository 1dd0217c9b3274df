"""Real code: a from-scratch scaled_dot_product_attention that was never run.

Source: oelin/attention, attention/scaled_dot_product_attention.py, commit
16fa629df1d06692e5b03515de27ae52a5bfdc58 (stored copy, retrieved 2026-11-30), function
scaled_dot_product_attention.
Adapted: the function is kept exactly as written (it uses `math` without importing it and ends with
`score @ V`, a name it never defines); the file's ScaledDotProductAttention class, which does not
parse (`nn.Modlue`, a `def` line without its colon), is left out so the file loads.
causal_attention calls the function with is_causal=True and returns what it returns. The template's
shape checks and SingleHead are added.
Instructor's verdict: every call raises: inputs that are not 3-D fail unpacking `query.size()` into
three names (ValueError), 3-D inputs raise NameError: name 'math' is not defined (and would then
stop at the undefined V); nothing about attention can be credited. SingleHead's structure is right.
Band [0, 15]; no catalogued id (the feedback must quote the NameError).
"""

from typing import Optional

import torch
from torch import nn


def scaled_dot_product_attention(
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    mask: Optional[torch.Tensor] = None,  # noqa: UP045
    dropout_probability: float = 0.0,
    is_causal: bool = False,
) -> torch.Tensor:
    """Scaled Dot-product Attention."""

    query_batch_size, query_sequence_length, query_dimension = query.size()
    key_batch_size, key_sequence_length, key_dimension = query.size()
    value_batch_size, value_sequence_length, value_dimension = value.size()

    # Checks (can be omitted).

    assert query_batch_size == key_batch_size
    assert query_batch_size == value_batch_size

    if mask is not None:
        mask_query_sequence_length, mask_key_sequence_length = mask.size()

        assert not is_causal
        assert query_sequence_length == mask_query_sequence_length
        assert key_sequence_length == mask_key_sequence_length

    assert key_sequence_length == value_sequence_length
    assert query_dimension == key_dimension

    # Computation.

    if is_causal:
        mask = torch.ones(query_sequence_length, key_sequence_length, dtype=torch.float).tril(diagonal=0)
        mask = mask.masked_fill(mask == 0, -torch.inf)

    score = query @ key.transpose(-2, -1)
    score = score / math.sqrt(query_dimension)  # noqa: F821
    score = score + mask
    score = torch.softmax(score, dim=-1)
    output = score @ V  # noqa: F821

    return output


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
    return scaled_dot_product_attention(q, k, v, is_causal=True)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
