"""Starts a thread that outlives the call: it burns CPU, prints, and later writes a forged
reply onto the result pipe. Expected: the call's own (correct) reply is graded, the thread
dies with the child, and the next submission grades normally."""
import math
import os
import threading
import time

import torch


def _haunt():
    time.sleep(0.05)
    for fd in range(3, 10):
        try:
            os.write(fd, b"\x00\x00\x00\x10{\"kind\":\"reply\"}")
        except OSError:
            pass
    while True:
        print("still here")
        time.sleep(0.01)


def causal_attention(q, k, v):
    threading.Thread(target=_haunt, daemon=True).start()
    t = q.shape[-2]
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
