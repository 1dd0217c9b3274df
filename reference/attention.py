"""Reference solution: one causal self-attention head (instructor only).

Follows the chapter's "Build it" Part 2 and Part 4. Rows are receiving positions, the last
two dimensions always mean positions and features, and any leading dimensions are
independent batch items that must never attend to each other.
"""

import math

import torch
from torch import nn


def _check_shapes(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
    """Refuse anything that would only work by accidental broadcasting between batches."""
    shapes = f"q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}"
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"q, k and v need at least 2 dims (positions, features); got {shapes}")
    if not (q.shape[:-1] == k.shape[:-1] == v.shape[:-1]):
        raise ValueError(
            f"q, k and v must share batch dims and sequence length T (square self-attention); got {shapes}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same feature width d_k; got {shapes}")


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal scaled dot-product attention.

    q, k: (..., T, d_k); v: (..., T, d_v). Returns (out, weights) with out (..., T, d_v) and
    weights (..., T, T); row i of weights is receiving position i and is zero right of the diagonal.
    """
    _check_shapes(q, k, v)
    t = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    # Lower triangle including the diagonal: position i may use sources 0..i, never i+1 onwards.
    allowed = torch.ones(t, t, dtype=torch.bool, device=q.device).tril()
    # -inf, not 0: exp(0) = 1 would still hand the future a positive share.
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out, weights


class SingleHead(nn.Module):
    """One trainable causal head: separate query, key and value projections, no bias."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        d_v = d_k if d_v is None else d_v
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v, bias=False)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x: (..., T, n_embd) -> (out (..., T, d_v), weights (..., T, T))."""
        return causal_attention(self.query(x), self.key(x), self.value(x))
