"""Allocates 12 GiB in 1 GiB steps inside a call, touching every page: the memory cap is
reached at the third step, long before the CPU budget. Expected: memory_limit, named the same
way on every run and every load (never timeout, though the kernel's reclaim at the cap burns CPU)."""
import torch

GIB_OF_FLOATS = 1 << 28


def causal_attention(q, k, v):
    held = []
    for _ in range(12):
        held.append(torch.ones(GIB_OF_FLOATS))
    return v, v
