"""Inside the call, writes a well-formed header announcing a 64 GiB tensor onto the result
pipe. Expected: protocol_error for that call (oversized frame), nothing allocated."""
import json
import os
import struct


def causal_attention(q, k, v):
    head = json.dumps({"kind": "reply", "meta": {}, "tensors": [
        {"name": "out", "dtype": "float32", "shape": [1 << 34], "nbytes": 1 << 36}]}).encode()
    for fd in range(3, 10):
        try:
            os.write(fd, struct.pack(">I", len(head)) + head)
        except OSError:
            pass
    import time
    time.sleep(100)
