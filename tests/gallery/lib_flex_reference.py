"""Flex attention's eager reference (`math_attention` in torch's flex attention operator module),
reached through sys.modules: softmax and matrix products in Python, no fused operator at the
dispatcher. Expected: refused at call (found by the walk over torch's modules), named by
forbidden_api; every call is an error, the file scores 0."""
import math
import sys

import torch

flex = sys.modules["torch._higher_order_ops." + "flex_attention"]


def _causal(score, b, h, q_idx, kv_idx):
    return torch.where(q_idx >= kv_idx, score, -float("inf"))


def _weights(q, k):
    T = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    return torch.softmax(s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")), -1)


def causal_attention(q, k, v):
    q4, k4, v4 = (t.reshape(-1, 1, *t.shape[-2:]) for t in (q, k, v))
    T = q.shape[-2]
    block = (T, T, None, None, None, None, None, None, None, None, lambda b, h, i, j: i >= j)
    out = flex.math_attention(q4, k4, v4, _causal, block, 1 / math.sqrt(q.shape[-1]), {})[0]
    return out.reshape(v.shape[:-2] + out.shape[-2:]).to(q.dtype), _weights(q, k)
