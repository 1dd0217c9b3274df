"""Returns weights of shape (0, T, T) with T = 12,000: a reply of a few hundred bytes. A grader that
builds a T x T mask from the reply's shape allocates gigabytes. Expected: protocol_error for every
call (a dimension the probe never asked for), and the grader's memory does not move."""
import torch

T = 12_000


def causal_attention(q, k, v):
    return torch.zeros_like(v), torch.empty(0, T, T, dtype=q.dtype)
