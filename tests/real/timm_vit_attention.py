"""Real code: timm's ViT attention, non-fused path, as a vision transformer calls it.

Source: huggingface/pytorch-image-models, timm/models/vision_transformer.py, commit
0041cb7ba4ab3b8b3bce5bf105300f0ee57ffc22 (stored copy, retrieved 2026-11-30),
ParallelScalingBlock.forward, the `else:` branch of `if self.fused_attn`.
Adapted: the fused branch, q/k norms and projections are dropped. Vision transformers call the
block with attn_mask=None and is_causal=False, for which resolve_self_attn_mask returns no bias and
maybe_add_mask leaves the scores unchanged, so those two calls are left out. scale = head_dim**-0.5
with head_dim read from q. The template's shape checks and SingleHead are added.
Instructor's verdict: an encoder (bidirectional) attention: no causal mask at all, every position
sees the future. Leak: at most half. Band [0, 50]; ids [no_mask].
"""

from torch import nn


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
    scale = q.shape[-1] ** -0.5
    q = q * scale
    attn = q @ k.transpose(-2, -1)
    attn = attn.softmax(dim=-1)
    x_attn = attn @ v
    return x_attn, attn


class SingleHead(nn.Module):
    def __init__(self, n_embd, d_k, d_v=None):
        super().__init__()
        self.query = nn.Linear(n_embd, d_k, bias=False)
        self.key = nn.Linear(n_embd, d_k, bias=False)
        self.value = nn.Linear(n_embd, d_k if d_v is None else d_v, bias=False)

    def forward(self, x):
        return causal_attention(self.query(x), self.key(x), self.value(x))
