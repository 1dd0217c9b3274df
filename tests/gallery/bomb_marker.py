"""A correct file that carries a marker the boundary tests key a planted grader failure on
(bomb): the grader failing on one file must become that file's report, never the run's end."""
import math

import torch


def causal_attention(q, k, v):
    T = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return weights @ v, weights
