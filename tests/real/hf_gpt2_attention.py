"""Real code: Hugging Face transformers' GPT-2 eager attention (GPT2Attention._attn).

Source: huggingface/transformers, src/transformers/models/gpt2/modeling_gpt2.py, commit
0010f60284ab4b9d14b7df9c6525b1a2ad44e640 (stored copy, retrieved 2026-11-30), GPT2Attention._attn
with the defaults of GPT2Config (scale_attn_weights=True, scale_attn_by_inverse_layer_idx=False,
not cross-attention, no attention_mask or head_mask).
Adapted: the body of _attn is kept as written, with the (1, 1, max_positions, max_positions) bool
`bias` buffer (max_positions = 1024) sliced as in the original, the finfo.min fill through
torch.where and the cast back to value's dtype. Dropout is dropped. The template's shape checks
and SingleHead are added.
Instructor's verdict: the scores are divided by sqrt(value.size(-1)), the VALUE width, so the
scale is wrong whenever d_v != d_k (GPT-2 never notices: its heads have d_v == d_k); in addition the
4-D bias buffer gives unbatched and singly batched inputs extra leading dimensions. Wrong math,
no leak. Band [30, 85]; ids [wrong_scale].
"""

import torch
from torch import nn

max_positions = 1024
bias = torch.tril(torch.ones((max_positions, max_positions), dtype=torch.bool)).view(
    1, 1, max_positions, max_positions
)


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
    attn_weights = torch.matmul(query, key.transpose(-1, -2))

    attn_weights = attn_weights / torch.full(
        [], value.size(-1) ** 0.5, dtype=attn_weights.dtype, device=attn_weights.device
    )

    # if only "normal" attention layer implements causal mask
    query_length, key_length = query.size(-2), key.size(-2)
    causal_mask = bias[:, :, key_length - query_length : key_length, :key_length]
    mask_value = torch.finfo(attn_weights.dtype).min
    # Need to be a tensor, otherwise we get error: `RuntimeError: expected scalar type float but found double`.
    # Need to be on the same device, otherwise `RuntimeError: ..., x and y to be on the same device`
    mask_value = torch.full([], mask_value, dtype=attn_weights.dtype).to(attn_weights.device)
    attn_weights = torch.where(causal_mask, attn_weights.to(attn_weights.dtype), mask_value)

    attn_weights = nn.functional.softmax(attn_weights, dim=-1)

    # Downcast (if necessary) back to V's dtype (if in mixed-precision) -- No-Op otherwise
    attn_weights = attn_weights.type(value.dtype)

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
