"""ctypes' C module reached by every import door but the statement: __import__ with a built name,
importlib, the builtins' own __import__, a spec loaded by hand. Falls back to (v, v). Expected: each
import or the library it opens is refused (and recorded); no native name is in the source, so the run's record is what names it; forbidden_api fails, no check pays."""
import builtins
import importlib
import importlib.util

import torch

PARTS = ("_ct", "ypes")
OPEN = ("dl", "open")


def _doors():
    name = "".join(PARTS)
    yield "__import__", lambda: __import__(name)
    yield "importlib", lambda: importlib.import_module(name)
    yield "builtins", lambda: vars(builtins)["__imp" + "ort__"](name)
    yield "spec", lambda: importlib.util.module_from_spec(importlib.util.find_spec(name))


def causal_attention(q, k, v):
    for label, door in _doors():
        try:
            module = door()
            print("NATIVE", label, getattr(module, "".join(OPEN))(None, 2))
        except Exception as exc:  # noqa: BLE001
            print("REFUSED", label, type(exc).__name__, str(exc)[:80])
    T = q.shape[-2]
    return v.clone(), torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T).clone()
