"""Real code: the attention of Meta's original LLaMA release (llama/model.py).

Source: meta-llama/llama, llama/model.py, commit 0504cf440a50aab815cadccd10a46e7ba70ff344 (stored
copy, retrieved 2026-11-30), Attention.forward (scores, mask, softmax, output) and the mask built in
Transformer.forward (start_pos = 0: no cache).
Adapted: the KV cache, rotary embeddings and projections are dropped; the mask is built as in
Transformer.forward, a (1, 1, seqlen, seqlen) tensor of -inf with triu(diagonal=start_pos + 1),
`.type_as(h)` becoming `.type_as(q)`; `keys.transpose(2, 3)` names the last two axes of the 4-D
layout the original receives and is written transpose(-2, -1); head_dim is read from q. The softmax
in float32 and the cast back (`.float()` ... `.type_as(xq)`) are kept. The template's shape checks
and SingleHead are added.
Instructor's verdict: the math is right; the softmax runs in float32, so float64 inputs get
answers right to about 1e-7 (a precision finding), and the 4-D mask gives unbatched and singly
batched inputs extra leading dimensions (an interface slip). Band [85, 99]; ids [dtype_downcast].
"""

import math

import torch
import torch.nn.functional as F
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
    xq, keys, values = q, k, v
    seqlen, head_dim = q.shape[-2], q.shape[-1]
    start_pos = 0

    mask = None
    if seqlen > 1:
        mask = torch.full((1, 1, seqlen, seqlen), float("-inf"), device=q.device)
        mask = torch.triu(mask, diagonal=start_pos + 1).type_as(q)

    scores = torch.matmul(xq, keys.transpose(-2, -1)) / math.sqrt(head_dim)
    if mask is not None:
        scores = scores + mask  # (bs, n_local_heads, slen, cache_len + slen)
    scores = F.softmax(scores.float(), dim=-1).type_as(xq)
    output = torch.matmul(scores, values)  # (bs, n_local_heads, slen, head_dim)
    return output, scores


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
