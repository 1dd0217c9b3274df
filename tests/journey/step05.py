"""Causal self-attention: your submission.

Implement the two names below. Keep both names exactly as they are: the grader looks them up.
Check your work with `python -m grader check attention.py`.

Not allowed inside this file: `torch.nn.functional.scaled_dot_product_attention` and
`torch.nn.MultiheadAttention`. The point is to write the operation yourself.
"""

import math  # noqa: F401  (you will want math.sqrt)

import torch
from torch import nn


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Causal scaled dot-product attention for one head.

    Arguments:
        q: queries, shape (..., T, d_k)
        k: keys,    shape (..., T, d_k)
        v: values,  shape (..., T, d_v)
        The last two dimensions always mean (positions, features). Any leading dimensions
        ("...") are independent batch items: they must be IDENTICAL for q, k and v, and items
        must never attend to each other. T must be the same for q, k and v, and q and k must
        have the same feature width d_k. d_v may differ from d_k.

    Returns:
        (out, weights), in this order:
        out:     shape (..., T, d_v), out[..., i, :] = sum_j weights[..., i, j] * v[..., j, :]
        weights: shape (..., T, T), row i = receiving position i, column j = source position j.
                 Each row sums to one, and weights[..., i, j] == 0 for every j > i
                 (the lower triangle INCLUDING the diagonal is allowed).

    Rules:
        - Scores are (q @ k^T) / sqrt(d_k). Hide future sources before the softmax
          (negative infinity, not zero), and normalise along the source axis (dim=-1).
        - Raise ValueError, with a message that names the shapes you got, when q, k or v has
          fewer than 2 dimensions, when their leading batch dimensions or T differ (no
          broadcasting between unrelated batches), or when q and k feature widths differ.
        - Return tensors with the same dtype and on the same device as the inputs; build the
          mask on q's device.
        - Never modify q, k or v in place; keep everything differentiable (no .detach(),
          no .data, no argmax).
    """
    if q.dim() < 2 or k.dim() < 2 or v.dim() < 2:
        raise ValueError(f"q, k and v need at least 2 dimensions, got q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[:-1] != k.shape[:-1] or q.shape[:-1] != v.shape[:-1]:
        raise ValueError(f"q, k and v must have the same batch dimensions and T, got q {tuple(q.shape)}, k {tuple(k.shape)}, v {tuple(v.shape)}")
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(f"q and k must have the same feature width, got q {tuple(q.shape)}, k {tuple(k.shape)}")
    T = q.shape[-2]
    d_k = q.shape[-1]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(d_k)
    allowed = torch.ones(T, T, dtype=torch.bool, device=q.device).tril()
    scores = scores.masked_fill(~allowed, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    out = weights @ v
    return out, weights


class SingleHead(nn.Module):
    """One trainable causal attention head.

    SingleHead(n_embd, d_k, d_v=None) must define three attributes:
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key   = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_v, bias=False)   # d_v defaults to d_k
    and no other parameters. With n_embd=6, d_k=d_v=2 that is 36 parameters.
    """

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        raise NotImplementedError("SingleHead.__init__ is not written yet")

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """x: (..., T, n_embd) -> (out, weights) = causal_attention(query(x), key(x), value(x)).

        An input of shape (2, 4, 6) with n_embd=6, d_k=d_v=2 gives out (2, 4, 2) and
        weights (2, 4, 4).
        """
        raise NotImplementedError("SingleHead.forward is not written yet")
