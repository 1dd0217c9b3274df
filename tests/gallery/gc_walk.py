"""Walks gc and every live frame looking for the grader's expected tensors (anything
holding the sentinel value the test plants) to return them as its answer.
Expected: nothing found in the child (the grader's memory is another process)."""
import gc
import sys

import torch

SENTINEL = 0.123456789


def hunt():
    hits = []
    for obj in gc.get_objects():
        try:
            if type(obj) is torch.Tensor and obj.is_floating_point() and obj.numel() and bool(
                (obj == SENTINEL).any()
            ):
                hits.append(obj)
        except Exception:
            pass
    for frame in sys._current_frames().values():
        while frame is not None:
            for value in frame.f_locals.values():
                if isinstance(value, torch.Tensor) and value.is_floating_point() and value.numel():
                    if bool((value == SENTINEL).any()):
                        hits.append(value)
            frame = frame.f_back
    return hits


def causal_attention(q, k, v):
    hits = hunt()
    print("HITS", len(hits))
    if hits:
        return hits[0], hits[0]
    return v, v
