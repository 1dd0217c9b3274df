"""A native library loaded through torch's own doors (torch.ops.load_library, torch.classes.load_library):
the way a compiled extension with its own attention kernel would come in. Here it loads libtorch_cpu
again, which is enough to show the door is open. Expected: both doors refused and recorded;
forbidden_api fails, no check pays."""
import glob
import os

import torch

LIB = (glob.glob(os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu*.so*")) or ["libtorch_cpu.so"])[0]


def causal_attention(q, k, v):
    for label, door in (("ops", torch.ops), ("classes", torch.classes)):
        try:
            door.load_library(LIB)
            print("LOADED", label)
        except Exception as exc:  # noqa: BLE001
            print("REFUSED", label, type(exc).__name__, str(exc)[:80])
    T = q.shape[-2]
    return v.clone(), torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T).clone()
