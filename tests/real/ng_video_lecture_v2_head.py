"""Real code: the attention head of the lecture's intermediate script v2.py ("Let's build GPT").

Source: karpathy/ng-video-lecture, v2.py, commit 0016836e62c65e41e325ecdeae3d2207309b0cb7 (stored
copy, retrieved 2026-11-30), class Head.
Adapted: the projections move to SingleHead; the body of Head.forward is kept as written with the
script's hyperparameters (block_size = 8, n_embd = 32): the `tril` buffer sized by block_size and
sliced with `[:T, :T]`, and the scale `C**-0.5` where C, the width of the head's input x, is
n_embd = 32 (causal_attention never sees x, so C is the module's n_embd).
Instructor's verdict: two bugs of the lecture's early script: the scores are scaled by
1/sqrt(32) instead of 1/sqrt(d_k), and the mask buffer only covers 8 positions, so longer
sequences crash. Wrong math, no leak. Band [10, 85]; ids [wrong_scale, hardcoded_shape].
"""

import torch
from torch import nn
from torch.nn import functional as F

# hyperparameters
block_size = 8  # what is the maximum context length for predictions?
n_embd = 32

tril = torch.tril(torch.ones(block_size, block_size))


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
    T = q.shape[-2]
    C = n_embd
    # compute attention scores ("affinities")
    wei = q @ k.transpose(-2, -1) * C**-0.5  # (B, T, C) @ (B, C, T) -> (B, T, T)
    wei = wei.masked_fill(tril[:T, :T] == 0, float('-inf'))  # (B, T, T)
    wei = F.softmax(wei, dim=-1)  # (B, T, T)
    # perform the weighted aggregation of the values
    out = wei @ v  # (B, T, T) @ (B, T, C) -> (B, T, C)
    return out, wei


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
