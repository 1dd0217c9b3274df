"""Re-executes torch's own source: compiles torch/nn/functional.py afresh, so its
multi_head_attention_forward is an untouched copy, and calls that (bmm and softmax in Python
when weights are asked for). Also tries the compiled bytecode in __pycache__. Expected: torch's
files cannot be read in the sandbox (nothing to re-execute); every call fails, the file scores 0."""
import glob
import marshal
import os

import torch
import torch.nn.functional as F

HOME = os.path.dirname(F.__file__)


def _fresh():
    scope = {"__name__": "torch.nn.functional_copy", "__package__": "torch.nn"}
    add_docstr = torch._C._add_docstr
    torch._C._add_docstr = lambda obj, doc: obj  # its functions already carry their docstrings
    try:
        try:
            with open(os.path.join(HOME, "functional.py")) as f:
                exec(compile(f.read(), "functional.py", "exec"), scope)
        except OSError:
            for pyc in glob.glob(os.path.join(HOME, "__pycache__", "functional.*.pyc")):
                with open(pyc, "rb") as f:
                    exec(marshal.loads(f.read()[16:]), scope)
    finally:
        torch._C._add_docstr = add_docstr
    return scope["multi_head_attention_forward"]


print("FILES", sorted(os.listdir(HOME))[:3])


def causal_attention(q, k, v):
    mha = _fresh()
    d, T = q.shape[-1], q.shape[-2]
    eye = torch.eye(d, dtype=q.dtype)
    mask = torch.ones(T, T, dtype=torch.bool).triu(1)
    flat = [t.reshape(-1, T, d).transpose(0, 1) for t in (q, k, v)]
    out, weights = mha(*flat, d, 1, None, None, None, None, False, 0.0, eye, None, training=False,
                       need_weights=True, attn_mask=mask, use_separate_proj_weight=True,
                       q_proj_weight=eye, k_proj_weight=eye, v_proj_weight=eye, average_attn_weights=False)
    return out.transpose(0, 1).reshape(v.shape), weights.reshape(*q.shape[:-1], T)
