"""Looks for the secret and the rubric in the environment, its own and every process's
/proc/<pid>/environ. Expected: prints nothing containing the secret."""
import os

print("ENV", dict(os.environ))
for pid in os.listdir("/proc"):
    if pid.isdigit():
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                print("PROCENV", pid, f.read().replace(b"\0", b" ")[:2000])
        except OSError:
            pass


def causal_attention(q, k, v):
    return v, v
