"""Speaks the protocol itself at import: a proper 'loaded' frame, then replies that claim success
for the first calls while carrying no tensors at all. Expected: no crash, no credit."""

import json
import os
import struct

OUTBOX = 4


def frame(kind, meta):
    head = json.dumps({"kind": kind, "meta": meta, "tensors": []}).encode()
    return struct.pack(">I", len(head)) + head


os.write(OUTBOX, frame("loaded", {"names": ["causal_attention", "SingleHead"], "defined": []}))
for call in ("we", "we.zero_q", "we.value_bump", "shift.we", "rand.flat.small"):
    os.write(OUTBOX, frame("reply", {"id": call, "ok": True, "grad": "ok"}))


def causal_attention(q, k, v):
    raise RuntimeError("never honest")


class SingleHead:
    def __init__(self, *args):
        raise RuntimeError("never honest")
