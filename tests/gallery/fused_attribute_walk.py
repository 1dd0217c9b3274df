"""No operator named at all: walks the attributes of torch's native namespaces (the variable functions,
torch._C._nn, torch.ops.aten) for anything whose name speaks of attention and calls the first that
computes. Expected: every one found is refused at the dispatcher (recorded); forbidden_api fails and
no value check pays."""
import torch

OWNERS = (torch._C._VariableFunctions, torch._C._nn, torch.ops.aten)


def _found():
    for owner in OWNERS:
        for name in dir(owner):
            if "attention" in name and "dot" in name:
                yield getattr(owner, name)


def causal_attention(q, k, v):
    T = q.shape[-2]
    eye = torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T)
    for fn in _found():
        try:
            out = fn(q, k, v, is_causal=True)
            out = out[0] if isinstance(out, tuple) else out
            weights = fn(q, k, eye, is_causal=True)
            return out, weights[0] if isinstance(weights, tuple) else weights
        except Exception:  # noqa: BLE001, S112 - try the next door
            continue
    return v.clone(), eye.clone()
