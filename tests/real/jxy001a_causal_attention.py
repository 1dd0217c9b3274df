"""Style twin of JXY001A/LLM-Learn chapter03/CausalAttention.py @ 554aada95c784574cf13c0aa9bdec0f59a66be16,
written in this project from a description of that code's style (fill value, mask, scale, dtype,
layout, bug); no line of it is copied.

Instructor's verdict: a leak. The softmax normalises along the receiving axis instead of the source
axis, so columns sum to one, rows do not, and earlier rows depend on later queries; the mask is
also a six-position module buffer, so longer sequences crash. The leak rule caps it at half.
Band [0, 50]; softmax_wrong_axis first, and hardcoded_shape. The file's import-time demo (an
example tensor, a projection built at import, a print) is kept; its numbers are ours.
"""

import torch
from torch import nn

CONTEXT_LENGTH = 6  # the demo batch's length
AHEAD = torch.triu(torch.ones(CONTEXT_LENGTH, CONTEXT_LENGTH), diagonal=1)  # 1 = future, on the CPU


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
    keys, queries, values = k, q, v
    n_tokens = q.shape[-2]
    scores = queries @ keys.transpose(-2, -1)
    scores.masked_fill_(AHEAD.bool()[:n_tokens, :n_tokens], -torch.inf)
    weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-2)  # the receiving axis
    return weights @ values, weights


# demo left at module level: runs on import
tokens = torch.tensor(
    [[0.10, 0.70, 0.30],
     [0.60, 0.20, 0.90],
     [0.40, 0.40, 0.50],
     [0.80, 0.10, 0.20],
     [0.30, 0.90, 0.60],
     [0.50, 0.30, 0.10]]
)
d_in = tokens.shape[1]
d_out = 2
demo_projection = nn.Linear(d_in, d_out, bias=False)  # draws from the global RNG at import
grid = torch.tensor([[1, 2, 3], [4, 5, 6]])
print("grid as 2 x 3:", grid.view(1, 6))


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
