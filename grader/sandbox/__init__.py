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
  read-only tmpfs (files by /dev/null), except the interpreter and its packages (.venv;
  one under a directory the slot uid cannot enter, like pyenv's /root, is bound back in);
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

The grader enforces wall-clock deadlines (per import, per call, per submission) and then
has the zygote SIGKILL the child's process group and every descendant: the zygote is the
child subreaper, so a process that escaped the group is still found; the whole tree is
stopped (SIGSTOP) before it is killed, so a fork bomb cannot outpace the killing, and all
of it is reaped before the next fork. Child replies are frames (`wire.py`): JSON checked
by pydantic plus raw bytes, never unpickled; a malformed or oversized frame is a
`protocol_error` for that call. The child's exit status only names why a reply is missing
(SIGXCPU or the CPU rlimit: `timeout`; a SIGKILL we did not send: `memory_limit`; any other
end: `process_exit`); it never earns anything. A call that kills, hangs or garbles its child
is recorded and the remaining calls go to a fresh child, at most `max_restarts` times.

Speed: the server pays `import torch` once (and warms up the operations the runner uses,
then `gc.freeze()`s, so children copy few pages). Calls are written ahead while the child
answers the previous one (it still answers one at a time; the deadline of a call starts
when the previous answer is in), and a finished child is reaped by the server while the
grader checks the replies. `python bench/warm_vs_fresh.py` measures it against a fresh
interpreter. One `Sandbox` runs one submission at a time: use one per worker (each takes
its own slot uid).

Isolation levels (`Sandbox.isolation`): "namespaces+uid" (root on Linux, all of the
above), "uid+rlimits" (root without namespaces: hidden files protected by permissions
only, network open; rlimits-only if the slot uid could not reach the interpreter), "rlimits-only" (not root, or not Linux: the submission can read
what you can, use the network and see your processes; a one-line warning says so).

Without isolation a submission can also kill the server or the grader itself (same uid);
if the server dies, that submission gets `process_exit` and the next one a fresh server.

Not enforced at any level: a total memory cap across a submission's processes (32 tasks
x the address-space limit could exceed RAM; no cgroup is used, so in practice only the
wall-clock kill bounds what they can touch), CPU time of descendants
beyond their own RLIMIT_CPU before the wall-clock kill, /proc showing other processes'
names and command lines (there is no PID namespace), and syscall filtering (no seccomp).
"""

from grader.sandbox.client import Sandbox
from grader.sandbox.models import Failure, Limits, RunResult, SandboxError
from grader.sandbox.trusted import answer_trusted
from grader.sandbox.wire import Frame

__all__ = ["Failure", "Frame", "Limits", "RunResult", "Sandbox", "SandboxError", "answer_trusted"]
