"""What a sandbox run is configured with and what it returns."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, Field

from grader.sandbox.wire import Frame
from grader.vocabulary import FailureKind, Isolation

GiB = 1 << 30
MiB = 1 << 20


class Limits(BaseModel):
    """Per-child limits. Wall-clock deadlines are enforced by the grader, the rest by the kernel."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    call_s: float = Field(3.0, gt=0, description="CPU seconds for one call's reply (wall clock where CPU time "
                          "cannot be measured).")
    load_s: float = Field(5.0, gt=0, description="CPU seconds for importing the submission (the same).")
    submission_s: float = Field(30.0, gt=0, description="CPU seconds for the whole submission, every process "
                                "it starts included (with cgroups; otherwise a wall-clock deadline).")
    wall_factor: float = Field(5.0, ge=1, description="Wall-clock backstops are this many times the CPU "
                               "budgets: they stop a child that waits without computing.")
    cpus: float = Field(1.0, gt=0, description="Cores a submission's processes may use together (cgroup quota).")
    cpu_s: int = Field(10, ge=1, description="RLIMIT_CPU soft limit per child (hard = soft + 1).")
    # The forked torch process already maps ~0.65 GiB (VmSize, measured); headroom comes on top of it.
    memory_headroom_bytes: int = Field(
        3 * GiB, ge=64 * MiB, description="RLIMIT_AS above the zygote's VmSize; with cgroups also the "
        "memory all the submission's processes may add together."
    )
    nproc: int = Field(32, ge=1, description="RLIMIT_NPROC: tasks (processes and threads) for the slot uid.")
    nofile: int = Field(256, ge=16, description="RLIMIT_NOFILE.")
    file_bytes: int = Field(8 * MiB, ge=0, description="RLIMIT_FSIZE: the largest file a child may write.")
    output_bytes: int = Field(64 * 1024, ge=256, description="How much of stdout+stderr the report keeps.")
    source_bytes: int = Field(1 * MiB, ge=1, description="The largest submission file accepted.")
    reply_bytes: int = Field(
        4 * MiB, ge=4096, description="The largest reply to one call, header and tensors (less when the call is small)."
    )
    replies_bytes: int = Field(
        32 * MiB, ge=4096, description="Every frame of one submission together, headers and tensors; past it the "
        "submission stops."
    )
    max_restarts: int = Field(2, ge=0, description="Fresh children after a call killed its child.")


@dataclass
class Failure:
    kind: FailureKind
    message: str
    skipped: bool = False  # the call was never made: the submission had been stopped, or the sandbox gave up


@dataclass
class RunResult:
    load: Frame | None  # the runner's first frame ("loaded" / "load_error"); None if it never came
    replies: dict[str, Frame] = field(default_factory=dict)
    failures: dict[str, Failure] = field(default_factory=dict)
    failure: Failure | None = None
    output: str = ""
    isolation: Isolation = "rlimits-only"
    wall_s: float = 0.0
    reply_bytes: int = 0  # bytes received (headers and tensors, every frame), against Limits.replies_bytes


class SandboxError(RuntimeError):
    """The sandbox itself broke (not the submission): the zygote died or could not start."""
