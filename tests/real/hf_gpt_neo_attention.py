"""Real code: Hugging Face transformers' GPT-Neo self-attention (GPTNeoSelfAttention._attn).

Source: huggingface/transformers, src/transformers/models/gpt_neo/modeling_gpt_neo.py, commit
002fb3e7a2db86cef2160e206c878ff895b74ef0 (stored copy, retrieved 2026-11-30),
GPTNeoSelfAttention.__init__ (global attention) and _attn.
Adapted: _attn is kept as written: query and key cast to float32, no scaling of the scores
(GPT-Neo is trained without it), the (1, 1, max_positions, max_positions) uint8 `bias` buffer
(max_positions = 2048, GPTNeoConfig's default) and the -1e9 `masked_bias` through torch.where,
the cast back to value's dtype. Dropout is dropped. The template's shape checks and SingleHead are
added.
Instructor's verdict: the scores are never divided by sqrt(d_k) (missing scale, a model-design
choice that is wrong for this chapter's contract); the float32 cast of q and k also costs precision
on float64 inputs, and the 4-D buffer adds leading dimensions to unbatched results. Wrong math, no
leak. Band [30, 85]; ids [missing_scale (first), dtype_downcast].
"""

import torch
from torch import nn

max_positions = 2048
bias = torch.tril(torch.ones((max_positions, max_positions), dtype=torch.uint8)).view(
    1, 1, max_positions, max_positions
)
masked_bias = torch.tensor(-1e9)


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
    query, key, value = q, k, v
    # Keep the attention weights computation in fp32 to avoid overflow issues
    query = query.to(torch.float32)
    key = key.to(torch.float32)

    attn_weights = torch.matmul(query, key.transpose(-1, -2))

    query_length, key_length = query.size(-2), key.size(-2)
    causal_mask = bias[:, :, key_length - query_length : key_length, :key_length].bool()
    attn_weights = torch.where(causal_mask, attn_weights, masked_bias.to(attn_weights.dtype))

    attn_weights = nn.Softmax(dim=-1)(attn_weights)
    attn_weights = attn_weights.to(value.dtype)

    attn_output = torch.matmul(attn_weights, value)

    return attn_output, attn_weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
