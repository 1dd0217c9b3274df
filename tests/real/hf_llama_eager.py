"""Real code: Hugging Face transformers' LLaMA eager attention and its causal mask.

Source: huggingface/transformers, src/transformers/models/llama/modeling_llama.py, commit
002272831fba584eb30dca9729c1be456836960a (stored copy, retrieved 2026-11-30), LlamaAttention.forward
(scores, additive mask, float32 softmax, output) and the mask of LlamaModel._update_causal_mask
(no padding mask, cache_position = arange(T)).
Adapted: projections, rotary embeddings, the KV cache and grouped heads are dropped; the mask is
built as _update_causal_mask builds it (finfo(dtype).min, triu(diagonal=1), the cache_position
product) without its final expansion to (batch, 1, T, T), which needs a batch size an unbatched
input does not have; `key_states.transpose(2, 3)` names the last two axes of the 4-D layout the
original receives and is written transpose(-2, -1). The template's shape checks and SingleHead
are added.
Instructor's verdict: correct math; the softmax is computed in float32 and cast back
(`dtype=torch.float32` ... `.to(query_states.dtype)`), so float64 inputs are right to about 1e-7:
a precision finding only. Band [95, 100]; ids [dtype_downcast].
"""

import math

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
    query_states, key_states, value_states = q, k, v
    head_dim = q.shape[-1]

    dtype, device = q.dtype, q.device
    min_dtype = torch.finfo(dtype).min
    sequence_length = target_length = q.shape[-2]
    cache_position = torch.arange(sequence_length, device=device)
    causal_mask = torch.full((sequence_length, target_length), fill_value=min_dtype, dtype=dtype, device=device)
    if sequence_length != 1:
        causal_mask = torch.triu(causal_mask, diagonal=1)
    causal_mask *= torch.arange(target_length, device=device) > cache_position.reshape(-1, 1)

    attn_weights = torch.matmul(query_states, key_states.transpose(-2, -1)) / math.sqrt(head_dim)
    attn_weights = attn_weights + causal_mask

    # upcast attention to fp32
    attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(query_states.dtype)
    attn_output = torch.matmul(attn_weights, value_states)
    return attn_output, attn_weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
