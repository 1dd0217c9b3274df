"""Prints 200 MB at import, then is correct. Expected: graded normally and quickly, the
output kept in the report is truncated with a marker."""
import math
import os

import torch

for _ in range(100):
    print("x" * 1_000_000)
os.write(1, b"y" * 100_000_000)  # around Python's stdout: the file-size limit stops it


def causal_attention(q, k, v):
    t = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
