"""Real code: a GPT-2 tutorial's reference solution for causal masking.

Source: msaelices/learn-gpt2, problems/05-causal-masking/solution.py, commit
1e39426aaf23ce0c764078027176b3648c262007 (stored copy, retrieved 2026-11-30),
CausalMultiHeadAttention.forward, steps 4 to 8.
Adapted: the packed c_attn projection, the head split/merge, dropout and c_proj are dropped; steps
4-8 are kept as written, including the (1, 1, n_positions, n_positions) `bias` buffer
(n_positions = 1024, the default) sliced with `[:, :, :seq_len, :seq_len]`; head_dim is read from
the inputs. The template's shape checks and SingleHead are added.
Instructor's verdict: correct math; the 4-D mask buffer broadcasts unbatched and singly batched
inputs to 4-D results (extra leading dimensions): an interface slip, at most 10% off.
Band [90, 99]; no catalogued id.
"""

import torch
from torch import nn

n_positions = 1024
# This is a lower-triangular matrix where mask[i,j] = 1 if j <= i
bias = torch.tril(torch.ones(n_positions, n_positions)).view(1, 1, n_positions, n_positions)


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
    seq_len, head_dim = q.size(-2), q.size(-1)
    # Step 4: Compute scaled dot-product attention scores
    attn_scores = (q @ k.transpose(-2, -1)) / (head_dim**0.5)
    # Step 5: Apply causal mask (prevent attending to future positions)
    attn_scores = attn_scores.masked_fill(
        bias[:, :, :seq_len, :seq_len] == 0, float("-inf")
    )
    # Step 6: Apply softmax to get attention weights
    attn_weights = torch.softmax(attn_scores, dim=-1)
    # Step 8: Apply attention to values
    out = attn_weights @ v
    return out, attn_weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
