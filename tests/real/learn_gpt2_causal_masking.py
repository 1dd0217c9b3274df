"""Style twin of msaelices/learn-gpt2 problems/05-causal-masking/solution.py @ 1e39426aaf23ce0c764078027176b3648c262007
(steps 4 to 8 of the causal multi-head attention), written in this project from a description of
that code's style (fill value, mask, scale, dtype, layout, bug); no line of it is copied.

Instructor's verdict: correct math; the (1, 1, 1024, 1024) mask buffer gives unbatched and singly
batched inputs extra leading dimensions, an interface slip worth at most a tenth. Band [90, 99];
no catalogued misconception has to be named.
"""

import torch
from torch import nn

N_POSITIONS = 1024
# ones on and below the diagonal: position i may use positions 0..i
LOWER = torch.tril(torch.ones(N_POSITIONS, N_POSITIONS)).view(1, 1, N_POSITIONS, N_POSITIONS)


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
    seq_len, head_dim = q.shape[-2], q.shape[-1]
    # step 4: similarities, scaled
    scores = (q @ k.transpose(-2, -1)) / (head_dim ** 0.5)
    # step 5: the future gets -inf
    scores = scores.masked_fill(LOWER[:, :, :seq_len, :seq_len] == 0, float("-inf"))
    # step 6: weights along the source axis
    weights = torch.softmax(scores, dim=-1)
    # step 8: mix the values (step 7, dropout, is gone)
    return weights @ v, weights


class SingleHead(nn.Module):
    """The exercise's head: three bias-free projections feeding causal_attention."""

    def __init__(self, n_embd: int, d_k: int, d_v: int | None = None) -> None:
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
