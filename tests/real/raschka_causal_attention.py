"""Real code: CausalAttention from "Build a Large Language Model (From Scratch)", chapter 3.

Source: rasbt/LLMs-from-scratch, ch03/02_bonus_efficient-multihead-attention/ch03.py, commit
3f1dfc9bb6fc85931a68acfdda01f22b82bed743 (stored copy, retrieved 2026-11-30), class
CausalAttention; the buffer size is the one the chapter's notebook passes
(ch03/01_main-chapter-code/ch03.ipynb: `context_length = batch.shape[1]`, six tokens).
Adapted: projections move to SingleHead; forward is kept as written: a `mask` buffer built with
triu(diagonal=1) for block_size = 6, the in-place `masked_fill_` on the scores, the scale inside the
softmax call. `keys.transpose(1, 2)` names the last two axes of the 3-D layout the class receives
and is written transpose(-2, -1). Dropout is dropped.
Instructor's verdict: correct for sequences of at most 6 positions, crashes on longer ones
(the mask buffer is sized for the book's six-token example): wrong for general T, no leak.
Band [10, 85]; ids [hardcoded_shape].
"""

import torch
from torch import nn

block_size = 6  # context_length = batch.shape[1] in the chapter's notebook
mask = torch.triu(torch.ones(block_size, block_size), diagonal=1)


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
    keys, queries, values = k, q, v
    num_tokens = q.shape[-2]
    attn_scores = queries @ keys.transpose(-2, -1)
    attn_scores.masked_fill_(  # New, _ ops are in-place
        mask.bool()[:num_tokens, :num_tokens], -torch.inf)
    attn_weights = torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)
    context_vec = attn_weights @ values
    return context_vec, attn_weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
