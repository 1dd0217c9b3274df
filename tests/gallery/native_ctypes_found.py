"""ctypes never imported by name: found where the process already holds it (sys.modules, torch's own
namespace, the sandbox's libc handle, the types the garbage collector knows) and used to call libc.
Expected: every door is gone or refused (each recorded); forbidden_api fails, no check pays."""
import gc
import sys

import torch

NAME = "ct" + "ypes"


def _doors():
    yield "sys.modules", lambda: sys.modules[NAME]
    yield "torch", lambda: getattr(torch, NAME)
    yield "harden", lambda: sys.modules["grader.sandbox.harden"]._libc
    yield "gc", lambda: next(o for o in gc.get_objects() if type(o).__name__ == "CDLL")


def causal_attention(q, k, v):
    for label, door in _doors():
        try:
            found = door()
            libc = found.CDLL(None) if hasattr(found, "CDLL") else found
            print("NATIVE", label, libc.getpid())
        except Exception as exc:  # noqa: BLE001
            print("REFUSED", label, type(exc).__name__, str(exc)[:80])
    T = q.shape[-2]
    return v.clone(), torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T).clone()
