"""Real code: nanoGPT's default attention path (flash attention through PyTorch's fused kernel).

Source: karpathy/nanoGPT, model.py, commit 0011cd4442915c844e9b8f5c5117f25f5a7096c5 (stored copy,
retrieved 2026-11-30), CausalSelfAttention.forward, the `if self.flash:` branch, which PyTorch >= 2.0
always takes.
Adapted: the head split and projections are dropped; the branch is kept as written with dropout
off (`dropout_p=0`, eval mode). The fused call returns no weights, so the template's pair is
completed the way a student would have to: a second fused call attending over an identity matrix
of values. The template's shape checks and SingleHead are added.
Instructor's verdict: it calls torch.nn.functional.scaled_dot_product_attention, which the exercise
forbids: none of the attention is the student's own work, although every value is right.
Band [0, 50]; ids [forbidden_api].
"""

import torch
from torch import nn


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
    # efficient attention using Flash Attention CUDA kernels
    y = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=0, is_causal=True)
    eye = torch.eye(q.shape[-2], dtype=v.dtype, device=v.device).expand(*v.shape[:-1], q.shape[-2])
    att = torch.nn.functional.scaled_dot_product_attention(q, k, eye, attn_mask=None, dropout_p=0, is_causal=True)
    return y, att


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
