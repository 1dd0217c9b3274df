"""Real code: Dive into Deep Learning's DotProductAttention with masked_softmax (causal decoder lengths).

Source: d2l-ai/d2l-en, d2l/torch.py, commit c3fb91b02a8ea24e15134326872983d773c494cf (stored copy,
retrieved 2026-11-30): sequence_mask, masked_softmax, DotProductAttention.forward; the causal
valid lengths are those TransformerDecoderBlock.forward uses in training
(`dec_valid_lens = torch.arange(1, num_steps + 1, device=X.device).repeat(batch_size, 1)`).
Adapted: the three functions are kept as written (bmm, the in-place `X[~mask] = value` on the
flattened scores, the -1e6 fill); dropout is dropped; the decoder's valid lengths are computed
from q. The template's shape checks and SingleHead are added.
Instructor's verdict: correct math for (batch, T, d) inputs, and -1e6 is far below realistic
scores; but bmm and the `batch_size, num_steps, _ = X.shape` unpacking only accept exactly one
batch dimension, so unbatched inputs and inputs with two batch dimensions crash. Wrong for the
contract's shapes, no leak. Band [30, 90]; no catalogued id.
"""

import math

import torch
from torch import nn


def sequence_mask(X, valid_len, value=0):
    """Mask irrelevant entries in sequences."""
    maxlen = X.size(1)
    mask = torch.arange((maxlen), dtype=torch.float32,
                        device=X.device)[None, :] < valid_len[:, None]
    X[~mask] = value
    return X


def masked_softmax(X, valid_lens):
    """Perform softmax operation by masking elements on the last axis."""
    # X: 3D tensor, valid_lens: 1D or 2D tensor
    if valid_lens is None:
        return nn.functional.softmax(X, dim=-1)
    else:
        shape = X.shape
        if valid_lens.dim() == 1:
            valid_lens = torch.repeat_interleave(valid_lens, shape[1])
        else:
            valid_lens = valid_lens.reshape(-1)
        # On the last axis, replace masked elements with a very large negative
        # value, whose exponentiation outputs 0
        X = sequence_mask(X.reshape(-1, shape[-1]), valid_lens, value=-1e6)
        return nn.functional.softmax(X.reshape(shape), dim=-1)


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
    queries, keys, values = q, k, v
    batch_size, num_steps, _ = queries.shape
    dec_valid_lens = torch.arange(1, num_steps + 1, device=queries.device).repeat(batch_size, 1)
    d = queries.shape[-1]
    # Swap the last two dimensions of keys with keys.transpose(1, 2)
    scores = torch.bmm(queries, keys.transpose(1, 2)) / math.sqrt(d)
    attention_weights = masked_softmax(scores, dec_valid_lens)
    return torch.bmm(attention_weights, values), attention_weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
