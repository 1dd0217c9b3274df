"""Kills its parent, the sandbox server, at import. Expected: refused under isolation (no parent
in its PID namespace, or another uid) and graded as usual; without isolation the server dies, the submission gets
process_exit, and the next submission is graded by a fresh server."""
import os
import signal

if os.getppid() == 0:
    print("REFUSED: no parent in sight (a PID namespace of its own)")
else:
    try:
        os.kill(os.getppid(), signal.SIGKILL)
        print("KILLED", os.getppid())
    except OSError as exc:
        print("REFUSED", type(exc).__name__)


def causal_attention(q, k, v):
    return v, v
