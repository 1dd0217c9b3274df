"""Real code: a learner's copy of the LLMs-from-scratch CausalAttention, with its demo lines.

Source: JXY001A/LLM-Learn, chapter03/CausalAttention.py, commit
554aada95c784574cf13c0aa9bdec0f59a66be16 (stored copy, retrieved 2026-11-30).
Adapted: projections move to SingleHead and dropout is dropped; forward is kept as written with
the buffer the file's own demo sizes (`context_length = batch.shape[1]`, 6 tokens): triu(diagonal=1)
mask, in-place masked_fill_, and `torch.softmax(attn_scores/keys.shape[-1]**0.5, dim=1)`. The
axis numbers name axes of the (b, t, t) scores the class receives: `transpose(1,2)` is written
transpose(-2, -1) and `dim=1` (the receiving axis) is written dim=-2. The module-level demo lines
(example inputs, a Linear, a print) are kept. The template's shape checks and SingleHead are added.
Instructor's verdict: the softmax normalises over the RECEIVING axis (the book has dim=-1): each
column sums to one, rows do not, and an earlier row's weights depend on later queries (a leak);
also the 6-token buffer crashes longer sequences. Leak: at most half. Band [0, 50];
ids [softmax_wrong_axis (first), hardcoded_shape].
"""

import torch
from torch import nn

context_length = 6  # batch.shape[1] in the file's demo
mask = torch.triu(torch.ones(context_length, context_length),diagonal=1)


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
    attn_scores.masked_fill_(mask.bool()[:num_tokens,:num_tokens],-torch.inf)

    attn_weights = torch.softmax(attn_scores/keys.shape[-1]**0.5,dim=-2)

    context_vec = attn_weights @ values

    return context_vec, attn_weights


inputs = torch.tensor(
    [
        [0.43, 0.15, 0.89],  # Your     (x^1)
        [0.55, 0.87, 0.66],  # journey  (x^2)
        [0.57, 0.85, 0.64],  # starts   (x^3)
        [0.22, 0.58, 0.33],  # with     (x^4)
        [0.77, 0.25, 0.10],  # one      (x^5)
        [0.05, 0.80, 0.55],
    ]  # step     (x^6)
)
d_in = inputs.shape[1]
d_out = 2
W_query = nn.Linear(d_in,d_out,bias=False)
tensor2d = torch.tensor([[1,2,3],[4,5,6]])
print("tensor2d.view(2,3)",tensor2d.view(1,6))


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
