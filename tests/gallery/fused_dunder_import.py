"""Fused attention through __import__ and the builtins' own getattr, every name assembled at run time
from pieces: torch._C._nn.scaled_dot_product_attention without one import statement. Expected: refused
at the dispatcher (recorded); forbidden_api fails and no value check pays."""

_get = (__builtins__ if isinstance(__builtins__, dict) else vars(__builtins__))["get" + "attr"]
_nn = _get(__import__("to" + "rch._C", fromlist=["_nn"]), "_nn")
_door = _get(_nn, "_".join(("scaled", "dot", "product", "attention")))


def causal_attention(q, k, v):
    eye = __import__("torch").eye(q.shape[-2], dtype=q.dtype).expand(*q.shape[:-1], q.shape[-2])
    return _door(q, k, v, is_causal=True), _door(q, k, eye, is_causal=True)
