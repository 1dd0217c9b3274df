"""Fused attention through an operator overload looked up only inside the call (after any
tripwire was set), by a name built at run time; the math kernel even returns the weights.
Expected: refused at the dispatcher."""
import torch


def causal_attention(q, k, v):
    packet = getattr(torch.ops.aten, "_scaled_dot_product_" + "attention_math")
    out, weights = packet.default(q, k, v, is_causal=True)
    return out, weights
