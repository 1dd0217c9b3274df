"""Honest attention, but each reply's header carries JSON nested 150 deep (under the JSON parser's
own limit of about 200), so every reader of `meta` walks a tower. Expected: refused at the boundary
(protocol_error: nested deeper than the header allows); it earns nothing from those replies."""
import math
import sys

import torch

runner = sys.modules.get("grader.sandbox.runner")
if runner is not None:
    honest_answer = runner.answer

    def nested(module, call):
        reply = honest_answer(module, call)
        tower = []
        for _ in range(150):
            tower = [tower]
        reply.meta["slips"] = tower
        return reply

    runner.answer = nested


def causal_attention(q, k, v):
    T = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    w = torch.softmax(s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")), -1)
    return w @ v, w
