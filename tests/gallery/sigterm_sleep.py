"""Ignores SIGTERM, then sleeps (no CPU used, so only a wall-clock deadline catches it).
Expected: timeout; the SIGKILL cannot be ignored."""
import signal
import time

signal.signal(signal.SIGTERM, signal.SIG_IGN)


def causal_attention(q, k, v):
    time.sleep(1000)
