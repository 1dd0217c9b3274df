"""Looks for what a classmate left behind (leave_state.py): files, SysV IPC objects, processes.
Expected: finds nothing, prints nothing starting with FOUND."""
import ctypes
import os

KEY = 0x5A4D1234
libc = ctypes.CDLL(None, use_errno=True)
for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock"):
    if os.path.exists(os.path.join(folder, "answers-from-a-classmate")):
        print("FOUND file in", folder)
if libc.shmget(KEY, 0, 0) >= 0:
    print("FOUND shm")
if libc.msgget(KEY, 0) >= 0:
    print("FOUND msg")
for pid in os.listdir("/proc"):
    if pid.isdigit() and int(pid) != os.getpid():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                print("FOUND process", pid, f.read()[:80])
        except OSError:
            pass


def causal_attention(q, k, v):
    return v, v
