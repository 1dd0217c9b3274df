"""Returns a million-element output for every call (8 MB a reply in float64): diagnosing expanded
such replies about four times, and pictures of them took minutes. Expected: protocol_error for
every call (over the size this call allows), nothing of it reaches a check."""
import torch


def causal_attention(q, k, v):
    return torch.zeros(1000, 1000, dtype=q.dtype), torch.zeros(1000, 1000, dtype=q.dtype)
