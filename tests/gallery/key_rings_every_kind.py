"""Tries every key ring a process can reach, to leave the answers where the next child of the
same uid (a classmate) would look: the user and user-session rings, a new named session ring,
the persistent ring, and a search of them all. Key rings belong to the uid, not to a namespace,
and the persistent one outlives every process by days. Expected: each call refused (EPERM)."""
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
ADD_KEY, REQUEST_KEY, KEYCTL = 248, 249, 250  # x86_64
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_GET_PERSISTENT, KEYCTL_SEARCH = 1, 22, 10
attempts = {
    "user": lambda: libc.syscall(ADD_KEY, b"user", b"answers", b"42", 2, -4),
    "user_session": lambda: libc.syscall(ADD_KEY, b"user", b"answers", b"42", 2, -5),
    "join_session": lambda: libc.syscall(KEYCTL, KEYCTL_JOIN_SESSION_KEYRING, b"class-answers"),
    "persistent": lambda: libc.syscall(KEYCTL, KEYCTL_GET_PERSISTENT, -1, -4),
    "search": lambda: libc.syscall(KEYCTL, KEYCTL_SEARCH, -4, b"user", b"answers", 0),
    "request": lambda: libc.syscall(REQUEST_KEY, b"user", b"answers", None, 0),
}
for name, call in attempts.items():
    ret = call()
    print("KEYRING", name, ret, ctypes.get_errno() if ret < 0 else 0)


def causal_attention(q, k, v):
    return v, v
