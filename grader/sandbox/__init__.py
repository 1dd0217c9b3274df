"""Run untrusted submissions in a hardened child of a pre-warmed server.

Three roles. The grader process holds the rubric, the secret, the expected values and the
reference, and never executes student code. The zygote (`zygote.py`) is a fresh interpreter
started with an empty environment; it imports torch once (one thread) and holds nothing
secret. For every submission it forks a child that runs only the runner and student code.

What a child gets, in order (`harden.py`), before the submission is imported:
- a new session and process group; the submission is read from a descriptor the grader
  opened with O_NOFOLLOW (a symlink is refused) and copied into an empty scratch dir;
- as root on Linux, with cgroups v1: its slot's memory, pids, cpu and cpuacct groups
  (`cgroups.py`): memory for all the submission's processes together (= the address-space
  headroom), at most `nproc` tasks, at most `cpus` cores, and its CPU time counted;
- as root on Linux: PID 1 of a new PID namespace (the zygote unshares CLONE_NEWPID for one
  fork and goes back), new mount, network (no network, not even loopback), IPC and UTS
  namespaces, and a new root (pivot_root, the old one detached): the system directories
  (/usr, /bin, /lib*, /etc) and the interpreter's paths bound read-only, a minimal /dev, a
  fresh /proc that shows only its own processes, and private size-capped noexec tmpfs for /tmp,
  /var/tmp, /dev/shm and /run/lock. Nothing else of the host exists in it: not the
  repository, the submissions' folders, the rubric, the output folder or Gradescope's
  /autograder (metadata included), and /proc/self/mountinfo names only what is bound in. A
  hidden path inside a kept one is covered by an empty one: the grader installed into the
  kept venv (Gradescope's /autograder/venv), whose data files hold the instructor rubric;
- descriptors: 0 is /dev/null, 1 and 2 an append-only output file, 3 and 4 the call and
  reply pipes; every other inherited descriptor is closed; stdout/stderr are capped in
  Python (the rest is dropped, so a chatty submission is still graded) and by RLIMIT_FSIZE;
- an environment with nothing of the grader's (no GRADER_SECRET), cwd the scratch dir;
- rlimits: address space = the forked process's VmSize (~0.65 GiB with torch) + 3 GiB,
  CPU 10 s (hard = soft + 1), 32 tasks, 256 open files, 8 MiB files, no core dumps;
- PR_SET_NO_NEW_PRIVS, then as root a drop to a uid/gid unique to this sandbox's slot
  (61000 + n, held by an flock), which cannot read root's 0600 files;
- last, at every level where libseccomp.so.2 loads (Linux; not with `isolate=False`), the syscall
  filter (`syscalls.py`, compiled once by the server): EPERM for starting any program (execve,
  execveat: a fresh `python -I` would not be sealed), another process's memory (ptrace,
  process_vm_*, pidfd_getfd), key rings (add_key, request_key, keyctl: they belong to the uid, not
  a namespace, and outlive every process), IPC that outlives its process (shmget, msgget, semget,
  mq_open), mounts and namespaces (mount, pivot_root, unshare, setns, clone with a namespace
  flag; clone3 says ENOSYS so the C library falls back to clone), and the kernel's machinery
  (bpf, perf_event_open, userfaultfd, module and kexec loading, io_uring, clocks, personality...);
  another ABI (32-bit, x32) kills the process. `Sandbox.syscall_filter` says whether it is on;
  without it a one-line warning says so;
- in the runner (`runner.seal`), before the submission is imported: every door to PyTorch's
  fused attention is closed for good. Python functions (MultiheadAttention.forward,
  multi_head_attention_forward) are neutered in place, builtins replaced, and below them a
  kernel that records and refuses is registered at the dispatcher in front of every fused
  attention operator (scaled_dot_product*, flash/efficient/cudnn/math attention, native and
  triton multi-head attention, the encoder fast path), for each dispatch key it has; nothing
  in Python refers to that registration. A private module, a namespace loaded later, a JIT
  lookup or an original found by a gc walk all end at the dispatcher and are refused; a call
  that tried one says so in its reply (`fused`), even if it caught the refusal. Library attention
  without a fused operator is refused as a class (`runner.library_attention`): when the server
  starts, every Python function of torch's that its modules reach (methods, decorated functions
  included) is read, and each whose code names a fused operator or flavour (flash, efficient,
  cuDNN, flex attention) or takes a softmax and a matrix product is neutered in place to record
  and refuse (flex attention's eager reference, the quantizable MultiheadAttention's forward,
  decompositions...); torch's own files are covered in the child's new root, so no module of
  torch's the server did not import can be imported (the ONNX Attention reference, inductor's
  patterns) and none of its source or bytecode re-executed. A submission has what `import torch`
  brings and what the warm-up used (printing tensors and modules included); a rarer torch module
  fails to import (torch.testing.assert_close, which imports sympy: ~7 s of CPU, past any call's
  budget anyway);

Time is CPU time. A call, an import and a whole submission each have a budget in CPU seconds
(`call_s`, `load_s`, `submission_s`), read from the slot's cgroup (every process the
submission started) or, without cgroups, from the child's /proc entry; a busy machine slows
the wall clock, never the CPU clock, so a neighbour's load never becomes a verdict. Wall-clock
deadlines are backstops `wall_factor` (5) times longer, for a child that waits without
computing; one message names the stop whichever clock ran out. The first resource failure
(`timeout`, `memory_limit`) stops the submission: its other calls are "not run". A kill by the
kernel's OOM killer in the slot's group is `memory_limit`, however it showed, and so is any
stop after the submission met its memory cap (the group's memory.failcnt grew): at the cap the
kernel reclaims, burning CPU time, before it kills, so which clock ran out first was chance.

Replies are validated at the boundary (`wire.Bounds`, `client.reply_bounds`): before a byte of
tensor data is read, every dimension must be at most the call's largest input, every tensor
at most 16 times its inputs, a header at most 32 KiB and `meta` at most 4 levels deep, a reply
(header and tensors) at most `reply_bytes`; every frame of a submission (its 'loaded' frames,
each reply's header and tensors) at most `replies_bytes` together. A reply of shape (0, T, T) never makes the grader build a T x T mask.

The zygote kills a finished child's process group and every descendant (it is the child
subreaper; the whole tree is stopped before it is killed, so a fork bomb cannot outpace it);
with a PID namespace the kernel ends every process in it when the child dies. What a child can
make that could outlive it, and why none does: files (its /tmp, /var/tmp, /dev/shm and
/run/lock are private tmpfs mounts, gone with its mount namespace), SysV IPC and POSIX message
queues (refused by the filter; made without it, gone with the IPC namespace), keys (refused by
the filter), abstract unix sockets, timers, memfds, eventfds and inotify watches (they end with
the last process holding them, and the namespace), processes (killed as above). Child replies are frames (`wire.py`): JSON checked by
pydantic plus raw bytes, never unpickled; a malformed or oversized frame is a
`protocol_error` for that call. The child's exit status only names why a reply is missing; it
never earns anything. A call that kills or garbles its child is recorded and the remaining
calls go to a fresh child, at most `max_restarts` times.

Speed: the server pays `import torch` once (and warms up the operations the runner uses,
then `gc.freeze()`s, so children copy few pages). Calls are written ahead while the child
answers the previous one, and a finished child is reaped by the server while the grader
checks the replies. `python bench/warm_vs_fresh.py` measures it against a fresh interpreter;
`python bench/gallery_replay.py` grades the whole adversarial gallery beside honest files.
One `Sandbox` runs one submission at a time: use one per worker (each takes its own slot uid).

Isolation levels (`Sandbox.isolation`, `runtime.isolation` in every report):
- "namespaces+uid": root on Linux, all of the above.
- "namespaces+userns": no root, unprivileged user namespaces available: the same new root,
  mount, network, IPC and UTS namespaces, but no PID namespace (a user namespace cannot go
  back to its parent's after making one; the host's /proc is bound in, the subreaper kill ends
  every process), no uid drop (the child is its user; it could signal that user's other
  processes), no cgroups (memory bounded per process only, CPU time of the child alone).
- "uid+rlimits": root without namespaces: hidden files protected by permissions only,
  network open, /tmp and /var/tmp shared.
- "rlimits-only": not root and no user namespaces, or not Linux: the submission can read what
  you can, use the network and see your processes; a one-line warning says so.

Not enforced at any level: a submission that rewrites its
own process's memory or calls native code (ctypes, /proc/self/mem) can undo the refusals
inside itself (it then returns values the checks still judge, and the static check still reads
its source); below "namespaces+userns" torch's files stay readable, so its source can be
re-executed and its other modules imported (the walk and the dispatcher still refuse what
the server imported); CPU time beyond `submission_s` of processes a submission started is bounded by
the cgroup quota and the kill at the end, not counted per call without cgroups; the
"namespaces+userns" and lower levels lack what is listed above.
"""

from grader.sandbox.client import Sandbox
from grader.sandbox.models import Failure, Limits, RunResult, SandboxError
from grader.sandbox.native import MODULES as NATIVE_MODULES
from grader.sandbox.trusted import answer_trusted
from grader.sandbox.wire import Frame

__all__ = ["NATIVE_MODULES", "Failure", "Frame", "Limits", "RunResult", "Sandbox", "SandboxError", "answer_trusted"]
