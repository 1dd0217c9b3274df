"""Hunts the garbage collector (objects and what they refer to) for the tripwires' saved
originals, any callable named like the fused API, and uses the first that still computes.
Expected: every one found raises; the submission falls back to returning v, earning no value check."""
import gc

import torch

NAMES = ("scaled_dot_product_attention", "_scaled_dot_product_attention_math")


def _working():
    q = torch.randn(1, 3, 2, dtype=torch.float64)
    seen = set()
    for obj in gc.get_objects():
        for cand in (obj, *gc.get_referents(obj)):
            if id(cand) in seen or not callable(cand) or getattr(cand, "__name__", "") not in NAMES:
                continue
            seen.add(id(cand))
            try:
                out = cand(q, q, q, is_causal=True)
                return cand, isinstance(out, tuple)
            except Exception:  # noqa: BLE001
                continue
    return None, False


FOUND, PAIR = _working()
print("ORIGINAL", FOUND is not None)


def causal_attention(q, k, v):
    if FOUND is None:
        return v, v
    if PAIR:
        return FOUND(q, k, v, is_causal=True)
    T = q.shape[-2]
    eye = torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T)
    return FOUND(q, k, v, is_causal=True), FOUND(q, k, eye, is_causal=True)
