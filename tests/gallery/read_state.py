"""Looks for what a classmate left behind (leave_state.py): files, SysV IPC objects, a POSIX
message queue, a key in the uid's key ring, an abstract unix socket, processes. Expected:
finds nothing, prints nothing starting with FOUND."""
import ctypes
import os
import socket

KEY = 0x5A4D1234
NAME = b"answers-from-a-classmate"
libc = ctypes.CDLL(None, use_errno=True)
for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock"):
    if os.path.exists(os.path.join(folder, NAME.decode())):
        print("FOUND file in", folder)
if libc.shmget(KEY, 0, 0) >= 0:
    print("FOUND shm")
if libc.msgget(KEY, 0) >= 0:
    print("FOUND msg")
if libc.semget(KEY, 0, 0) >= 0:
    print("FOUND sem")
if libc.mq_open(b"/" + NAME, os.O_RDONLY) >= 0:
    print("FOUND mq")
# request_key("user", NAME, NULL, 0): searches the uid's key rings
if libc.syscall(249, b"user", NAME, None, 0) >= 0:
    print("FOUND key")
try:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(b"\0" + NAME)
        print("FOUND abstract socket")
except OSError:
    pass
for pid in os.listdir("/proc"):
    if pid.isdigit() and int(pid) != os.getpid():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                print("FOUND process", pid, f.read()[:80])
        except OSError:
            pass


def causal_attention(q, k, v):
    return v, v
