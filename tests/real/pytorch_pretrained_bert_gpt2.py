"""Style twin of huggingface/transformers pytorch_pretrained_bert/modeling_gpt2.py @ 007ab6f5b2d472c848094d87ffe47ed5aa624301
(the attention body, scaled, returning its weights), written in this project from a description
of that code's style (fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: a leak under large scores, because hidden entries become -1e4, a finite value
real scores can reach; the scale uses the value width; and the pair comes back as (weights, out).
Also 4-D results for 2-D and 3-D inputs. The leak rule caps it at half. Band [0, 50];
zero_fill_mask first, then wrong_scale and swapped_return.
"""

import math

import torch
from torch import nn

N_CTX = 1024
TRIANGLE = torch.tril(torch.ones(N_CTX, N_CTX)).view(1, 1, N_CTX, N_CTX)  # float, on the CPU


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
    # The style's attention takes keys already laid out as (..., d_k, T); here they arrive as (..., T, d_k).
    keys_by_column = k.transpose(-2, -1)
    # Scaled by the square root of the VALUE width: the style's own slip, harmless when d_v == d_k.
    att = torch.matmul(q, keys_by_column) / math.sqrt(v.size(-1))
    n_recv, n_src = att.shape[-2], att.shape[-1]
    keep = TRIANGLE[:, :, n_src - n_recv : n_src, :n_src]
    # Multiplicative keep plus a -1e4 penalty: a hidden score becomes exactly -1e4, not -inf.
    att = att * keep - 1e4 * (1 - keep)
    att = nn.Softmax(dim=-1)(att)
    # The pair comes back as (weights, output), the style's order.
    return att, torch.matmul(att, v)


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
