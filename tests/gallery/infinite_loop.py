"""A busy loop inside the function. Expected: timeout (wall clock), the child is killed."""


def causal_attention(q, k, v):
    while True:
        pass
