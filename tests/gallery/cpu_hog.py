"""Starts two dozen busy loops at import, each in its own session, then returns v twice: the
loops were meant to slow the next (honest) submission into a false timeout. Expected: every
loop dies with the child; the next file is judged on its own CPU time and scores full."""
import os

for _ in range(24):
    try:
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    except OSError:
        break


def causal_attention(q, k, v):
    return v, v
