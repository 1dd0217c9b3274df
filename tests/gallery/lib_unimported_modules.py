"""Imports the torch modules the server never imported, where more attention implementations
live: the ONNX exporter's Attention-23 reference (used for the output below), inductor's
fused-attention pattern functions, flex attention's public module. Expected: none of them can
be imported in the sandbox (torch's files are out of sight); the import fails, the file scores 0."""
import importlib
import math

import torch

for name in ("torch._inductor.fx_passes.fuse_attention", "torch.nn.attention.flex_attention"):
    try:
        importlib.import_module(name)
        print("IMPORTED", name)
    except Exception as exc:  # noqa: BLE001 - what stopped it is the finding
        print("NOT IMPORTED", name, type(exc).__name__)
onnx_attention = importlib.import_module("torch.onnx.ops._impl").attention_23


def causal_attention(q, k, v):
    T = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    w = torch.softmax(s.masked_fill(~torch.ones(T, T, dtype=torch.bool).tril(), float("-inf")), -1)
    q4, k4, v4 = (t.reshape(-1, 1, *t.shape[-2:]) for t in (q, k, v))
    out = onnx_attention(q4, k4, v4, is_causal=True)[0]
    return out.reshape(v.shape), w
