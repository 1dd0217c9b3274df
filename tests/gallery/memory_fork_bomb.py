"""On every call, forks eight helpers that each fill 200 MiB and wait: each process stays under
the address-space limit, together they pass any sane budget. Expected: memory_limit (the
kernel's OOM killer in the submission's memory cgroup), the same name on every run, and the
submission stopped at that first failure."""
import os
import time


def causal_attention(q, k, v):
    for _ in range(8):
        if os.fork() == 0:
            block = bytearray(200 << 20)
            block[:: 4096] = b"x" * len(block[:: 4096])
            time.sleep(600)
            os._exit(0)
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    return v, v
