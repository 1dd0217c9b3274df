"""Tries every way to start a program: os.execv (in a fork, so the runner survives),
os.posix_spawn, os.system, subprocess.Popen, and the execve and execveat system calls through
ctypes. A program that starts prints EXECUTED and the door's name. Expected: no EXECUTED (a
door that reports no error still started nothing); graded on its fallback (v, v) like any
other file."""
import ctypes
import os
import sys

SAY = "import sys; print('EXECUTED', sys.argv[1], flush=True)"
libc = ctypes.CDLL(None, use_errno=True)


def _program(door):
    return [sys.executable, "-I", "-c", SAY, door]


def _argv(door):
    argv = _program(door)
    return (ctypes.c_char_p * (len(argv) + 1))(*[a.encode() for a in argv], None)


def _in_fork(run):
    pid = os.fork()
    if pid == 0:
        try:
            run()
        except OSError as exc:
            os._exit(100 + (exc.errno or 0) % 100)
        os._exit(99)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code >= 100:
        raise OSError(code - 100, "in the fork")
    return code


def _ctypes_execve():
    libc.syscall(59, sys.executable.encode(), _argv("ctypes_execve"), None)  # x86_64 execve
    raise OSError(ctypes.get_errno(), "execve")


def _ctypes_execveat():
    fd = os.open(sys.executable, os.O_RDONLY)
    libc.syscall(322, fd, b"", _argv("ctypes_execveat"), None, 0x1000)  # x86_64 execveat, AT_EMPTY_PATH
    raise OSError(ctypes.get_errno(), "execveat")


def _try_all():
    import shlex
    import subprocess

    doors = {
        "execv": lambda: _in_fork(lambda: os.execv(sys.executable, _program("execv"))),
        "posix_spawn": lambda: os.waitpid(os.posix_spawn(sys.executable, _program("posix_spawn"), {}), 0),
        "system": lambda: os.system(shlex.join(_program("system"))),
        "popen": lambda: subprocess.Popen(_program("popen")).wait(),
        "ctypes_execve": lambda: _in_fork(_ctypes_execve),
        "ctypes_execveat": lambda: _in_fork(_ctypes_execveat),
    }
    for name, door in doors.items():
        try:
            print("TRIED", name, door(), flush=True)
        except OSError as exc:
            print("REFUSED", name, type(exc).__name__, flush=True)


_try_all()


def causal_attention(q, k, v):
    return v, v
