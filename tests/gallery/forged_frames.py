"""Writes well-formed but lying frames on the result pipe at import: a 'loaded' frame whose fields
have the wrong types, then 'replies' that claim success with no tensors or nonsense ones.
Expected: no crash in the grader, no credit for claims without numbers."""

import json
import os
import struct

OUTBOX = 4


def frame(kind, meta, tensors=b"", specs=()):
    head = json.dumps({"kind": kind, "meta": meta, "tensors": list(specs)}).encode()
    return struct.pack(">I", len(head)) + head + tensors


os.write(OUTBOX, frame("loaded", {"names": 5, "defined": {"x": 1}}))
lies = [
    frame("reply", {"id": "we", "ok": True, "grad": ["detached"], "layers": [1, 2]}),
    frame("reply", {"id": "we.zero_q", "ok": True},
          b"\x00" * 8, [{"name": "out", "dtype": "bool", "shape": [2, 2, 2], "nbytes": 8}]),
    frame("reply", {"id": "head", "ok": True, "n_params": "36", "layers": "Linear"}),
]
for lie in lies:
    os.write(OUTBOX, lie)


def causal_attention(q, k, v):
    raise RuntimeError("never honest")
