"""Hunts the garbage collector for the tripwires' saved originals (any callable named like the
fused API) and uses the first that still computes. Expected: every one found raises; the
submission falls back to returning v and earns nothing for values."""
import gc

import torch

NAMES = ("scaled_dot_product_attention", "multi_head_attention_forward")


def _working():
    q = torch.randn(1, 3, 2)
    for obj in gc.get_objects():
        if callable(obj) and getattr(obj, "__name__", "") in NAMES:
            try:
                obj(q, q, q, is_causal=True)
                return obj
            except Exception:  # noqa: BLE001
                continue
    return None


FOUND = _working()
print("ORIGINAL", FOUND is not None)


def causal_attention(q, k, v):
    if FOUND is None:
        return v, v
    T = q.shape[-2]
    eye = torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T)
    return FOUND(q, k, v, is_causal=True), FOUND(q, k, eye, is_causal=True)
