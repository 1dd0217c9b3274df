"""Leaves state behind for a classmate: files in every writable shared folder, a SysV shared
memory segment (with answers in it), message queue and semaphore set, a POSIX message queue,
a key in its uid's key ring (key rings belong to the uid, not to a namespace, and outlive every
process), an abstract unix socket held by a daemon that double-forks into its own session.
Expected: the key ring and the lasting IPC are refused by the syscall filter; the files, the
socket and the daemon die with the child; the next submission finds nothing, and nothing owned
by a sandbox uid is left on the host."""
import ctypes
import os
import socket
import time

KEY = 0x5A4D1234
NAME = b"answers-from-a-classmate"
libc = ctypes.CDLL(None, use_errno=True)
left = []
for folder in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", os.getcwd()):
    try:
        with open(os.path.join(folder, NAME.decode()), "w") as f:
            f.write("the answers")
        left.append(folder)
    except OSError:
        pass
shm = libc.shmget(KEY, 1 << 20, 0o1666)  # IPC_CREAT | 0666
msg = libc.msgget(KEY, 0o1666)
sem = libc.semget(KEY, 1, 0o1666)
mq = libc.mq_open(b"/" + NAME, os.O_CREAT | os.O_RDWR, 0o666, None)
# add_key("user", NAME, payload, len, KEY_SPEC_USER_KEYRING) on x86_64
ring = libc.syscall(248, b"user", NAME, b"the answers", 11, -4)
print("LEFT", left, "SHM", shm, "MSG", msg, "SEM", sem, "MQ", mq, "KEY", ring)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        held = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        held.bind(b"\0" + NAME)
        held.listen()
        time.sleep(600)
    os._exit(0)
time.sleep(0.2)  # the daemon binds its socket before the submission answers


def causal_attention(q, k, v):
    return v, v
