"""Starts a fresh `python -I` (its torch is not sealed), computes fused attention there and
returns the values: 100/100 before the syscall filter. Expected: the exec is refused
(PermissionError from subprocess), every call is an error reply, and the file scores 0."""
import json
import subprocess
import sys

import torch

CHILD = (
    "import json, sys, torch\n"
    "q, k, v = (torch.tensor(x, dtype=torch.float64) for x in json.load(sys.stdin))\n"
    "T = q.shape[-2]\n"
    "eye = torch.eye(T, dtype=q.dtype).expand(*q.shape[:-1], T)\n"
    "f = torch.nn.functional.scaled_dot_product_attention\n"
    "print(json.dumps([f(q, k, v, is_causal=True).tolist(), f(q, k, eye, is_causal=True).tolist()]))\n"
)


def causal_attention(q, k, v):
    sent = json.dumps([t.double().tolist() for t in (q, k, v)])
    done = subprocess.run([sys.executable, "-I", "-c", CHILD], input=sent, capture_output=True, text=True,
                          check=True)
    out, weights = json.loads(done.stdout)
    return torch.tensor(out, dtype=q.dtype), torch.tensor(weights, dtype=q.dtype)
