"""Real code: GPT-2 attention from pytorch-pretrained-BERT (the library before it became transformers).

Source: huggingface/transformers, pytorch_pretrained_bert/modeling_gpt2.py, commit
007ab6f5b2d472c848094d87ffe47ed5aa624301 (stored copy, retrieved 2026-11-30), Attention._attn with
scale=True (as GPT2Model's blocks are built) and output_attentions=True.
Adapted: _attn is kept as written: scores divided by sqrt(v.size(-1)), the
(1, 1, n_ctx, n_ctx) `bias` buffer (n_ctx = 1024) applied as `w * b - 1e4 * (1 - b)`, and the
`return w, torch.matmul(w, v)` of the output_attentions branch. The original receives a key already
transposed by split_heads(k=True); here that transpose is done on entry. Dropout and head_mask are
dropped. The template's shape checks and SingleHead are added.
Instructor's verdict: forbidden scores are set to -1e4, a finite fill that lets the future in once
allowed scores are of order -1e4 (a leak under large scores); the scale uses the value width; and
the pair comes back as (weights, out). Leak: at most half. Band [0, 50];
ids [zero_fill_mask (first), wrong_scale, swapped_return].
"""

import math

import torch
from torch import nn

n_ctx = 1024
bias = torch.tril(torch.ones(n_ctx, n_ctx)).view(1, 1, n_ctx, n_ctx)


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
    k = k.transpose(-2, -1)  # split_heads(key, k=True): (batch, head, head_features, seq_length)
    w = torch.matmul(q, k)
    w = w / math.sqrt(v.size(-1))
    nd, ns = w.size(-2), w.size(-1)
    b = bias[:, :, ns-nd:ns, :ns]
    w = w * b - 1e4 * (1 - b)

    w = nn.Softmax(dim=-1)(w)
    return w, torch.matmul(w, v)


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
