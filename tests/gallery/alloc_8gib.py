"""Allocates 8 GiB inside the function. Expected: a MemoryError reply (the address-space
limit refuses it), never a host out of memory."""
import torch


def causal_attention(q, k, v):
    big = torch.ones(2**31)  # 8 GiB of float32
    return big, big
