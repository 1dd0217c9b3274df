"""Real code: fairseq's MultiheadAttention core with the decoder's future mask.

Source: facebookresearch/fairseq, fairseq/modules/multihead_attention.py, commit
00bc279894ab6ed3641b0f791acc578ac2083584 (stored copy, retrieved 2026-11-30), MultiheadAttention.forward
(self-attention, no incremental state, no padding mask); `utils.softmax` and
`utils.fill_with_neg_inf` from fairseq/utils.py and the decoder's buffered_future_mask
(`torch.triu(utils.fill_with_neg_inf(torch.zeros([dim, dim])), 1)`), as in fairseq's sources.
Adapted: projections, bias_k/v, zero-attn and head reshapes are dropped; from `q *= self.scaling`
to `attn = torch.bmm(attn_probs, v)` the code is kept as written (the in-place scaling of q,
bmm, the in-place `attn_weights += attn_mask`, softmax in float32 and `.type_as`). In fairseq, q is
a fresh projection; here it is the caller's tensor. Dropout is dropped. The template's shape checks
and SingleHead are added.
Instructor's verdict: three findings: `q *= scaling` scales the caller's q in place (and raises on
a q that requires grad); bmm only accepts exactly one batch dimension (unbatched inputs fail at
k.transpose(1, 2), inputs with two batch dimensions at bmm); the softmax runs in float32 (precision on float64 inputs).
No leak. Band [20, 90]; ids [inputs_mutated, dtype_downcast].
"""

import torch
import torch.nn.functional as F
from torch import nn


def fill_with_neg_inf(t):
    """FP16-compatible function that fills a tensor with -inf."""
    return t.float().fill_(float("-inf")).type_as(t)


def softmax(x, dim: int, onnx_trace: bool = False):
    if onnx_trace:
        return F.softmax(x.float(), dim=dim)
    else:
        return F.softmax(x, dim=dim, dtype=torch.float32)


def buffered_future_mask(tensor, dim):
    return torch.triu(fill_with_neg_inf(torch.zeros([dim, dim])), 1).to(tensor)


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
    scaling = q.size(-1) ** -0.5
    attn_mask = buffered_future_mask(q, q.size(-2))
    q *= scaling

    attn_weights = torch.bmm(q, k.transpose(1, 2))

    attn_mask = attn_mask.unsqueeze(0)
    attn_weights += attn_mask

    attn_weights_float = softmax(attn_weights, dim=-1)
    attn_weights = attn_weights_float.type_as(attn_weights)
    attn_probs = attn_weights

    attn = torch.bmm(attn_probs, v)
    return attn, attn_weights


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
