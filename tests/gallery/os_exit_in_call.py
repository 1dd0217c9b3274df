"""os._exit(0) inside the function. Expected: process_exit for each call, the grader carries on."""
import os


def causal_attention(q, k, v):
    os._exit(0)
