"""Goes after the lock itself: finds the audit hook among the garbage collector's objects and swaps its
code for a function that allows everything, then opens libc. Expected: the swap is refused (a
function's code replaced is an audited event the hook refuses, its own included), the libc call too;
forbidden_api fails, no check pays."""
import gc
import sys

import torch


def _allow(event, args):
    return None


def causal_attention(q, k, v):
    for obj in gc.get_objects():
        if type(obj).__name__ == "function" and getattr(obj, "__name__", "") == "native_code_refused":
            try:
                obj.__code__ = _allow.__code__
                print("UNHOOKED")
            except Exception as exc:  # noqa: BLE001
                print("REFUSED unhook", type(exc).__name__, str(exc)[:80])
    try:
        handle = sys.modules.get("_ctypes") or __import__("_ctypes")
        print("NATIVE", handle.dlopen(None, 2))
    except Exception as exc:  # noqa: BLE001
        print("REFUSED dlopen", type(exc).__name__, str(exc)[:80])
    T = q.shape[-2]
    return v.clone(), torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T).clone()
