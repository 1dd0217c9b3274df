"""Real code: a learner's MaskedSelfAttention class (StatQuest-style notebook).

Source: Muzzammil-Hassan333/Coding-Masked-Self-Attention-in-PyTroch, "Coding Masked Self-Attention
in PyTroch.ipynb", commit 04aeef0ee9c92f77a8acf8f690ce586ba1ea7608 (stored copy, retrieved
2026-11-30), MaskedSelfAttention.forward and the mask cell (`mask = torch.tril(torch.ones(3, 3));
mask = mask == 0`).
Adapted: forward's body is kept as written with the class defaults row_dim=0, col_dim=1 (the
notebook's values); the notebook's 3 x 3 mask is built for the input's T (so the mask size is not
the bug here). Returns (attention_scores, attention_percents) for the template. The template's
shape checks and SingleHead are added.
Instructor's verdict: correct for unbatched (T, d) inputs only (and there only to float32 precision:
the scale is divided through a float32 `torch.tensor`): row_dim=0 / col_dim=1 are fixed axis
numbers, so on batched inputs `k.transpose(0, 1)` swaps batch and time, the scale reads
k.size(1) = T, and the softmax runs over dim 1. Batched inputs crash. Wrong for the contract's
shapes, no leak observed. Band [0, 60]; no catalogued id.
"""

import torch
import torch.nn.functional as F
from torch import nn

row_dim = 0
col_dim = 1


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
    mask = torch.tril(torch.ones(T, T))
    mask = mask == 0

    sims = torch.matmul(q, k.transpose(dim0=row_dim, dim1=col_dim))

    scaled_sims = sims / torch.tensor(k.size(col_dim)**0.5)

    ## Here we are masking out things we don't want to pay attention to
    scaled_sims = scaled_sims.masked_fill(mask=mask, value=-1e9)  # I've also seen -1e20 and -9e15 used in masking

    attention_percents = F.softmax(scaled_sims, dim=col_dim)

    attention_scores = torch.matmul(attention_percents, v)

    return attention_scores, attention_percents


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
