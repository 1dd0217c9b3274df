"""Correct weights, but outputs of zero width (..., T, 0). Drawing the leak picture took the
largest change of each row over an empty axis and raised, outside any guard: the class run
stopped there. Expected: graded (no points for the outputs), and the next file graded normally."""
import math

import torch


def causal_attention(q, k, v):
    T = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    allowed = torch.ones(T, T, dtype=torch.bool).tril()
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
    return (weights @ v)[..., :0], weights
