"""Leaves state behind for a classmate: files in every writable shared folder, a SysV shared
memory segment (with answers in it) and a message queue, and a daemon that double-forks into
its own session. Expected: every one of them dies with the child; the next submission finds
nothing, and nothing owned by a sandbox uid is left on the host."""
import ctypes
import os
import time

KEY = 0x5A4D1234
libc = ctypes.CDLL(None, use_errno=True)
left = []
for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", os.getcwd()):
    try:
        with open(os.path.join(folder, "answers-from-a-classmate"), "w") as f:
            f.write("the answers")
        left.append(folder)
    except OSError:
        pass
shm = libc.shmget(KEY, 1 << 20, 0o1666)  # IPC_CREAT | 0666
msg = libc.msgget(KEY, 0o1666)
print("LEFT", left, "SHM", shm, "MSG", msg)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(600)
    os._exit(0)


def causal_attention(q, k, v):
    return v, v
