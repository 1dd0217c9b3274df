"""Fused attention through torch's private variable functions, never naming the public API (the
math kernel even returns the weights). Expected: refused at the dispatcher; no value check
earns anything, forbidden_api fails."""
import torch

_door = getattr(torch._C._VariableFunctions, "_scaled_dot_product_" + "attention_math")


def causal_attention(q, k, v):
    out, weights = _door(q, k, v, is_causal=True)
    return out, weights
