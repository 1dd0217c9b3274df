"""The system calls a child may not make: a seccomp filter, built once per server, loaded by every child.

An attention submission computes with tensors; it never needs a new program, another process's
memory, a key ring, IPC that outlives it, a mount, a namespace or the kernel's own machinery.
Each group below says why it is refused. The filter is compiled by libseccomp (the system's
`libseccomp.so.2`, which apt itself depends on, so every Debian and Ubuntu image has it; the
Python bindings are not on PyPI and a venv's interpreter cannot see Debian's), called through
ctypes in the server before any fork: libseccomp knows each architecture's call numbers and
refuses calls made through another ABI (a 32-bit `int 0x80`, x32) by killing the process.
The compiled program is kept as bytes; a child loads it with one prctl, after its namespaces,
new root and uid drop and before the submission is imported, and cannot remove it.

A refused call fails with EPERM (so `os.execv` raises PermissionError in the submission, which
is then graded on what it returns); `clone3` fails with ENOSYS, so the C library falls back to
`clone`, whose flags the filter can read: a thread or a fork is allowed, a new namespace is not.
Standard library only: the child side runs after the repository is out of sight.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
import sys

# Why each call is refused, group by group. Names unknown to this kernel's architecture are skipped.
REFUSED: dict[str, tuple[str, ...]] = {
    # A fresh interpreter would not be sealed (its torch computes fused attention), nor would any program.
    "a new program": ("execve", "execveat", "uselib"),
    # Another process's memory, descriptors or state, whoever owns it.
    "another process": ("ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd",
                        "kcmp"),
    # Key rings belong to the uid, not to a namespace, and outlive every process: a slot's next child,
    # a classmate's submission, would find what this one stored there.
    "key rings": ("add_key", "request_key", "keyctl"),
    # SysV IPC and POSIX message queues outlive their process (without an IPC namespace, the host's).
    "lasting IPC": ("shmget", "msgget", "semget", "mq_open", "mq_unlink"),
    # The new root and namespaces are made before the filter; nothing may change them afterwards.
    "mounts and namespaces": ("mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_tree",
                              "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr"),
    # The kernel's own machinery: programs it runs, modules, hardware, clocks, names, accounting.
    "the kernel": ("bpf", "perf_event_open", "userfaultfd", "init_module", "finit_module", "delete_module",
                   "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff", "syslog", "acct", "quotactl",
                   "quotactl_fd", "iopl", "ioperm", "modify_ldt", "lookup_dcookie", "open_by_handle_at",
                   "name_to_handle_at", "fanotify_init", "settimeofday", "clock_settime", "clock_adjtime",
                   "adjtimex", "sethostname", "setdomainname", "vhangup", "personality", "nfsservctl",
                   "_sysctl", "ustat", "sysfs"),
    # A file that lives only in memory could be mapped as code (a native library from nowhere); the
    # scratch areas, the only other writable places, are mounted noexec.
    "code from memory": ("memfd_create", "memfd_secret"),
    # io_uring runs opens, connects and more without a system call the filter could see.
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
}
# clone's flags that make a namespace (clone3's are behind a pointer the filter cannot read).
NAMESPACE_FLAGS = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)

_ACT_ALLOW = 0x7FFF0000
_CMP_MASKED_EQ = 7
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


def _errno_action(err: int) -> int:
    return 0x00050000 | (err & 0xFFFF)


class _ArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _libseccomp() -> ctypes.CDLL | None:
    if not sys.platform.startswith("linux"):
        return None
    for name in ("libseccomp.so.2", ctypes.util.find_library("seccomp")):
        if name:
            try:
                lib = ctypes.CDLL(name, use_errno=True)
            except OSError:
                continue
            lib.seccomp_init.restype = ctypes.c_void_p
            lib.seccomp_init.argtypes = [ctypes.c_uint32]
            lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
            lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                                   ctypes.POINTER(_ArgCmp)]
            lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
            lib.seccomp_release.argtypes = [ctypes.c_void_p]
            return lib
    return None


def program() -> bytes | None:
    """The compiled filter (BPF instructions), or None where libseccomp is not available."""
    lib = _libseccomp()
    if lib is None:
        return None
    ctx = lib.seccomp_init(_ACT_ALLOW)
    if not ctx:
        return None
    try:
        def refuse(name: str, err: int, *cmps: _ArgCmp) -> None:
            nr = lib.seccomp_syscall_resolve_name(name.encode())
            if nr == -1:  # __NR_SCMP_ERROR: no such call on this architecture
                return
            array = (_ArgCmp * len(cmps))(*cmps) if cmps else None
            ret = lib.seccomp_rule_add_array(ctx, _errno_action(err), nr, len(cmps), array)
            if ret != 0:
                raise OSError(-ret, f"seccomp rule for {name}: {os.strerror(-ret)}")

        for names in REFUSED.values():
            for name in names:
                refuse(name, errno.EPERM)
        refuse("clone3", errno.ENOSYS)
        for flag in NAMESPACE_FLAGS:
            refuse("clone", errno.EPERM, _ArgCmp(0, _CMP_MASKED_EQ, flag, flag))
        r, w = os.pipe()
        try:
            ret = lib.seccomp_export_bpf(ctx, w)
            os.close(w)
            w = -1
            if ret != 0:
                raise OSError(-ret, f"seccomp export: {os.strerror(-ret)}")
            chunks = []
            while chunk := os.read(r, 1 << 16):
                chunks.append(chunk)
        finally:
            os.close(r)
            if w >= 0:
                os.close(w)
        return b"".join(chunks)
    finally:
        lib.seccomp_release(ctx)


def load(bpf: bytes, libc: ctypes.CDLL) -> None:
    """Install the filter on this (single-threaded) process for good; its children inherit it.
    Needs PR_SET_NO_NEW_PRIVS set first (then no privilege is needed)."""
    buf = ctypes.create_string_buffer(bpf, len(bpf))
    prog = _SockFprog(len(bpf) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp filter: {os.strerror(err)}")
