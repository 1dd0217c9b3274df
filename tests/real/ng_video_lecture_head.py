"""Real code: the single attention head from "Let's build GPT" (the video's gpt.py).

Source: karpathy/ng-video-lecture, gpt.py, commit 0ceb0055aad7a7b255730be650dd667d6daffd9f (stored
copy, retrieved 2026-11-30), class Head.
Adapted: the projections move to SingleHead; the body of Head.forward is kept as written,
including the module-level hyperparameters (block_size = 256, n_embd = 384), the `tril` buffer
sliced with `[:T, :T]`, and the scale `C**-0.5`. In the original, C is the width of the head's
input x, that is n_embd = 384, not the head size; causal_attention never sees x, so C is the
module's n_embd, which is what the original multiplies by. Dropout is dropped.
Instructor's verdict: the scores are scaled by 1/sqrt(384) instead of 1/sqrt(d_k) (the known
bug of this version of the file): wrong math, no leak. Band [30, 85]; ids [wrong_scale].
"""

import torch
from torch import nn
from torch.nn import functional as F

# hyperparameters
block_size = 256  # what is the maximum context length for predictions?
n_embd = 384

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
