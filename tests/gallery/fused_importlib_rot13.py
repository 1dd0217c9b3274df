"""Fused attention through importlib and an operator overload whose name is stored rot13-encoded, so no
forbidden word is in the source: torch.ops.aten._scaled_dot_product_attention_math.default, which even
returns the weights. Expected: refused at the dispatcher (recorded); forbidden_api fails and no value
check pays."""
import codecs
import importlib
import operator

_ops = importlib.import_module("torch").ops
_door = operator.attrgetter(codecs.decode("ngra._fpnyrq_qbg_cebqhpg_nggragvba_zngu.qrsnhyg", "rot13"))(_ops)


def causal_attention(q, k, v):
    out, weights = _door(q, k, v, is_causal=True)
    return out, weights
