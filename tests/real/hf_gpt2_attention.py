"""Style twin of huggingface/transformers src/transformers/models/gpt2/modeling_gpt2.py @ 0010f60284ab4b9d14b7df9c6525b1a2ad44e640
(the eager attention under the default config: scaled, no layer-index scaling, no extra masks),
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: wrong math without a leak. Scores are divided by the square root of the value
width, which differs from the key width whenever d_v != d_k (GPT-2's heads have equal widths, so
the model never shows it); the (1, 1, 1024, 1024) mask also gives unbatched and singly batched
inputs extra leading dimensions. Band [30, 85]; wrong_scale, first.
"""

import torch
from torch import nn

MAX_POSITIONS = 1024
# a plain CPU global, never moved: True where a query may look
CAUSAL = torch.tril(torch.ones((MAX_POSITIONS, MAX_POSITIONS), dtype=torch.bool)).view(
    1, 1, MAX_POSITIONS, MAX_POSITIONS)


def _refuse_bad_shapes(q, k, v):
    """Raise ValueError, naming the shapes, for any input the exercise's contract rules out."""
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() < 2:
            raise ValueError(f"{name} must have at least 2 dimensions (T, d), got shape {tuple(t.shape)}")
    same_batch = q.shape[:-2] == k.shape[:-2] == v.shape[:-2]
    same_length = q.shape[-2] == k.shape[-2] == v.shape[-2]
    if not (same_batch and same_length):
        raise ValueError(f"q, k and v must share their leading dimensions and T; got q {tuple(q.shape)}, "
                         f"k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k need the same feature width d_k; got q {tuple(q.shape)}, k {tuple(k.shape)}")


def causal_attention(q, k, v):
    _refuse_bad_shapes(q, k, v)
    query, key, value = q, k, v
    logits = torch.matmul(query, key.transpose(-1, -2))
    logits = logits / torch.full([], value.size(-1) ** 0.5, dtype=logits.dtype, device=logits.device)
    q_len, k_len = query.size(-2), key.size(-2)
    window = CAUSAL[:, :, k_len - q_len : k_len, :k_len]
    lowest = torch.finfo(logits.dtype).min
    lowest = torch.full([], lowest, dtype=logits.dtype).to(logits.device)
    logits = torch.where(window, logits.to(logits.dtype), lowest)
    probs = nn.functional.softmax(logits, dim=-1)
    probs = probs.type(value.dtype)
    return torch.matmul(probs, value), probs


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
