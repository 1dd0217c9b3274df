"""Run untrusted submissions in a hardened child of a pre-warmed server.

Three roles. The grader process holds the rubric, the secret, the expected values and the
reference, and never executes student code. The zygote (`zygote.py`) is a fresh interpreter
started with an empty environment; it imports torch once (one thread) and holds nothing
secret. For every submission it forks a child that runs only the runner and student code.

What a child gets, in order (`harden.py`), before the submission is imported:
- a new session and process group; the submission is read from a descriptor the grader
  opened with O_NOFOLLOW (a symlink is refused) and copied into an empty scratch dir;
- as root on Linux: new mount and network namespaces (no network, not even loopback), with
  the repository root, /autograder and every `hidden_paths` entry covered by an empty
  read-only tmpfs (files by /dev/null), except the interpreter and its packages (.venv);
  /tmp and /dev/shm are fresh private tmpfs (other submissions' scratch dirs are invisible);
- descriptors: 0 is /dev/null, 1 and 2 an append-only output file, 3 and 4 the call and
  reply pipes; every other inherited descriptor is closed; stdout/stderr are capped in
  Python (the rest is dropped, so a chatty submission is still graded) and by RLIMIT_FSIZE;
- an environment with nothing of the grader's (no GRADER_SECRET), cwd the scratch dir;
- rlimits: address space = the forked process's VmSize (~0.65 GiB with torch) + 3 GiB,
  CPU 10 s (hard = soft + 1), 32 tasks, 256 open files, 8 MiB files, no core dumps;
- PR_SET_NO_NEW_PRIVS, then as root a drop to a uid/gid unique to this sandbox's slot
  (61000 + n, held by an flock), which cannot read root's 0600 files or /proc/<pid>/environ
  of the grader, and makes RLIMIT_NPROC count only this submission's tasks.

The grader enforces wall-clock deadlines (per call, per import, per submission) and then
has the zygote SIGKILL the child's process group and every descendant: the zygote is the
child subreaper, so a process that escaped the group is still found and reaped, and a
fork bomb leaves nothing behind for the next submission. Child replies are frames
(`wire.py`): JSON checked by pydantic plus raw bytes, never unpickled; a malformed or
oversized frame is a `protocol_error` for that call. The child's exit status only names
why a reply is missing; it never earns anything.

Isolation levels (`Sandbox.isolation`): "namespaces+uid" (root on Linux, all of the
above), "uid+rlimits" (root without namespaces: hidden files protected by permissions
only, network open), "rlimits-only" (not root, or not Linux: the submission can read
what you can, use the network and see your processes; a one-line warning says so).

Not enforced at any level: a total memory cap across a submission's processes (32 tasks
x the address-space limit could exceed RAM; no cgroup is used), CPU time of descendants
beyond their own RLIMIT_CPU before the wall-clock kill, /proc showing other processes'
names and command lines (there is no PID namespace), and syscall filtering (no seccomp).
"""

from grader.sandbox.client import Sandbox
from grader.sandbox.models import Failure, Limits, RunResult, SandboxError
from grader.sandbox.wire import Frame

__all__ = ["Failure", "Frame", "Limits", "RunResult", "Sandbox", "SandboxError"]
