"""sys.exit(0) inside the function. Expected: every call replies with an error (SystemExit)."""
import sys


def causal_attention(q, k, v):
    sys.exit(0)
