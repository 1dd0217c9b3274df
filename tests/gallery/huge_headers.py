"""Honest attention, but every reply the runner sends is padded with about 1 MiB of JSON (the
submission patches the runner's `answer` in its own process): the grader once held every header,
3.9 GB for one file, and still gave 100. Expected: each padded reply is refused at the boundary
(protocol_error: a header over the per-reply cap), the grader's memory stays flat, and the file
earns nothing from replies it padded."""
import math
import sys

import torch

runner = sys.modules.get("grader.sandbox.runner")
if runner is not None:
    honest_answer = runner.answer

    def padded(module, call):
        reply = honest_answer(module, call)
        reply.meta["pad"] = [{}] * 250_000  # about 1,000,000 bytes of JSON, under the old 1 MiB cap
        return reply

    runner.answer = padded


def causal_attention(q, k, v):
    T = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    w = torch.softmax(s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")), -1)
    return w @ v, w
