"""Style twin of huggingface/transformers src/transformers/models/gpt_neo/modeling_gpt_neo.py @ 002fb3e7a2db86cef2160e206c878ff895b74ef0
(global self-attention), written in this project from a description of that code's style (fill
value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: wrong math, no leak. The scores are never scaled by 1/sqrt(d_k) (that model
does without it by design, wrong for this contract); q and k are cast to float32, which costs
precision on float64 inputs; the (1, 1, 2048, 2048) buffer adds leading dimensions.
Band [30, 85]; missing_scale first, and dtype_downcast.
"""

import torch
from torch import nn

CONTEXT = 2048
LOWER = torch.tril(torch.ones((CONTEXT, CONTEXT), dtype=torch.uint8)).view(1, 1, CONTEXT, CONTEXT)
HIDDEN = torch.tensor(-1e9)  # float32, 0-dim


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
    query = query.to(torch.float32)
    key = key.to(torch.float32)
    logits = torch.matmul(query, key.transpose(-1, -2))  # no 1/sqrt(d_k) anywhere
    q_len, k_len = query.size(-2), key.size(-2)
    seen = LOWER[:, :, k_len - q_len : k_len, :k_len].bool()
    logits = torch.where(seen, logits, HIDDEN.to(logits.dtype))
    probs = nn.Softmax(dim=-1)(logits)
    probs = probs.to(value.dtype)
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
