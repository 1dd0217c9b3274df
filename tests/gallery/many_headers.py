"""Honest attention, but every reply's header is padded to just under the per-reply cap (about
30 KiB of JSON), so no single reply is refused: only the bytes of all replies together can stop it.
Expected: its headers count toward the per-submission cap like its tensors (test_boundary.py
shows the cap bite), and what it sends never costs the grader more than the caps allow."""
import math
import sys

import torch

runner = sys.modules.get("grader.sandbox.runner")
if runner is not None:
    honest_answer = runner.answer

    def padded(module, call):
        reply = honest_answer(module, call)
        reply.meta["pad"] = [{}] * 7_000  # about 28,000 bytes of JSON
        return reply

    runner.answer = padded


def causal_attention(q, k, v):
    T = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    w = torch.softmax(s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")), -1)
    return w @ v, w
