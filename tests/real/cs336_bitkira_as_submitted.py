# ruff: noqa: I001, E402  (the student's import block is kept as written)
"""Real code: the same CS336 student's attention file as it sits in the repository, imports included.

Source: bitkira/Stanford-CS336, assignment1-basics-main/cs336_basics/ScaledDotProductAttention.py,
commit 9aa7c5c007d9ec2a9bfb973377bb27ee59b03dbd (stored copy, retrieved 2026-11-30).
Adapted: nothing inside the student's lines: the einops import, the sys.path hack pointing at the
student's laptop and the import of their own Softmax module are kept, as a student submitting this
one file would submit them. causal_attention (building the mask as the student's MHA.py does) and
the template's SingleHead are added below.
Instructor's verdict: the file cannot be imported: `einops` is not installed for submissions and
`cs336_basics.Softmax` is a module of the student's that was not submitted. Nothing runs.
Band [0, 5]; ids [import_error] (the message must name the student's missing module).
"""
import torch
import torch.nn as nn
from einops import rearrange
import sys
sys.path.append("/Users/bitkira/Documents/GitHub/Stanford-CS336/assignment1-basics-main/")
from cs336_basics.Softmax import softmax


def scaled_dot_product_attention(q, k, v, mask):
    k = rearrange(k, "... seq_len d_k -> ... d_k seq_len")
    out = torch.matmul(q, k) / torch.sqrt(torch.tensor(q.shape[-1], dtype=q.dtype))
    out[~mask] = float('-inf')
    return torch.matmul(softmax(out, i=-1), v)


def causal_attention(q, k, v):
    T = q.shape[-2]
    mask = torch.tril(torch.ones(T, T, dtype=int, device=q.device)).bool()
    return scaled_dot_product_attention(q, k, v, mask=mask)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
