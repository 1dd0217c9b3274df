# ruff: noqa: I001, E402
"""Style twin of bitkira/Stanford-CS336 assignment1-basics-main/cs336_basics/ScaledDotProductAttention.py
@ 9aa7c5c007d9ec2a9bfb973377bb27ee59b03dbd, the file as the student left it (its import block too),
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: nothing loads. The file needs einops, which submissions do not have, and then
the student's own cs336_basics.Softmax module, which was never handed in; no behaviour can be
credited. Band [0, 5]; import_error, named first, and the feedback names the missing module.
"""

import torch
import torch.nn as nn
from einops import rearrange
import sys

sys.path.append("/Users/bitkira/Documents/GitHub/Stanford-CS336/assignment1-basics-main/")
from cs336_basics.Softmax import softmax


def scaled_dot_product_attention(q, k, v, mask):
    k_t = rearrange(k, "... seq_len d_k -> ... d_k seq_len")
    scores = torch.matmul(q, k_t) / torch.sqrt(torch.tensor(q.shape[-1], dtype=q.dtype))
    scores[~mask] = float("-inf")
    return torch.matmul(softmax(scores, i=-1), v)


def causal_attention(q, k, v):
    n = q.shape[-2]
    keep = torch.tril(torch.ones(n, n, dtype=int, device=q.device)).bool()
    return scaled_dot_product_attention(q, k, v, keep)


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
