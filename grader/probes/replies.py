"""What came back for each probe, read once from the sandbox's frames into typed replies.

This is the one module that reads frames: a reply frame's fields are validated by the protocol's
models (a field the protocol does not declare, or one of the wrong type, makes that call a
protocol error that says so), and a call the sandbox never made is `skipped`, a field, not a
wording to parse. Checks, the diagnosis and the pictures read only these types.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import torch
from pydantic import ValidationError

from grader.intake.notebook import cell_line
from grader.probes import Memo
from grader.sandbox import RunResult, protocol
from grader.sandbox.wire import Frame
from grader.vocabulary import MISSING, PROTOCOL_ERROR, ErrorKind


@dataclass
class Reply(Memo):
    ok: bool
    tensors: dict[str, torch.Tensor] = field(default_factory=dict)
    meta: protocol.ReplyMeta | None = None  # the reply frame's validated fields; None when no frame came back
    error_type: ErrorKind | str | None = None  # one of ours (`ErrorKind`) or the class name the code raised
    error: str | None = None
    where: str = ""  # where the submission's own code raised: " at line 12 (`out = w @ v`)", or ""
    lineno: int | None = None  # the submission's line where it raised (a call's or the import's)
    skipped: bool = False  # never made: the sandbox stopped the submission (or gave up) before this call

    def __post_init__(self) -> None:
        if self.meta is not None and not isinstance(self.meta, protocol.ReplyMeta):
            raise TypeError(f"a reply's meta is a validated protocol.ReplyMeta, not {type(self.meta).__name__}")

    @property
    def raised(self) -> str:
        """What the call raised, where, as a student reads it: "NameError at line 12 (`...`): ..."."""
        return f"{self.error_type}{self.where}: {self.error}"

    def __getitem__(self, name: str) -> torch.Tensor:
        return self.tensors[name]

    # The frame's fields, typed; a reply with no frame (the sandbox's verdict) has none of them.
    @property
    def mro(self) -> tuple[str, ...]:
        """The raised exception's class names, most derived first."""
        return tuple(self.meta.error_mro) if self.meta else ()

    @property
    def slips(self) -> tuple[str, ...]:
        return tuple(self.meta.slips) if self.meta else ()

    @property
    def grad(self) -> str | None:
        return self.meta.grad if self.meta else None

    @property
    def grad_missing(self) -> tuple[str, ...]:
        return tuple(self.meta.grad_missing) if self.meta else ()

    @property
    def n_params(self) -> int | None:
        return self.meta.n_params if self.meta else None

    @property
    def layers(self) -> dict[str, protocol.LayerInfo]:
        return dict(self.meta.layers) if self.meta else {}

    @property
    def fused(self) -> tuple[str, ...]:
        return tuple(self.meta.fused) if self.meta else ()

    @classmethod
    def from_frame(cls, frame: Frame) -> Reply:
        """A reply frame as checks see it, re-typed by a model: a child can write anything."""
        meta, refused = _validate(protocol.ReplyMeta, frame.meta)
        if meta is None:
            return cls(False, error_type=PROTOCOL_ERROR, error=f"the reply's fields are not the protocol's: {refused}")
        # A head's `return out` alone comes back without weights (the runner reads a function's through v = I).
        lone = "lone_out" in meta.slips and "out" in frame.tensors
        if meta.ok and not ({"out", "weights"} <= frame.tensors.keys() or lone):
            return cls(False, error_type=PROTOCOL_ERROR, error="a reply claimed success without out and weights")
        if meta.ok:
            return cls(True, frame.tensors, meta)
        return cls(False, {}, meta, (meta.error_type or "unknown")[:80], meta.error_message[:600], lineno=meta.lineno)


def _validate(model, meta: object):
    """(the validated fields, None) or (None, what is wrong with them, as one line)."""
    try:
        return model.model_validate(meta), None
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(part) for part in first["loc"]) or "the fields"
        what = "a field the protocol does not declare" if first["type"] == "extra_forbidden" else first["msg"]
        return None, f"{name[:80]}: {what}"


def missing() -> Reply:
    """The reply of a probe nothing came back for."""
    return Reply(False, error_type=MISSING, error="no reply was received")


def source_line(source: str, lineno: int | None) -> str | None:
    """Line `lineno` of the submission's own source (the grader's copy), stripped and bounded."""
    lines = source.splitlines()
    if lineno and 1 <= lineno <= len(lines) and lines[lineno - 1].strip():
        return lines[lineno - 1].strip()[:120]
    return None


def at_line(source: str, lineno: int | None) -> str:
    """ " at line 12 (`code`)", for a line the source has; "" for one it has not (a reply can say anything)."""
    lines = source.count("\n") + 1
    if not lineno or not 1 <= lineno <= lines:
        return ""
    line = source_line(source, lineno)
    # A notebook is graded as the script of its definitions: say where in the notebook the line was written.
    cell = cell_line(source, lineno)
    where = f" in cell {cell[0]}, line {cell[1]}" if cell else f" at line {lineno}"
    return where + (f" (`{line}`)" if line else "")


@dataclass
class Answers:
    """What one sandbox run answered: what the file defines (or why it did not load) and a reply per call."""

    replies: dict[str, Reply] = field(default_factory=dict)
    load_error: Reply | None = None
    load_names: tuple[str, ...] = ()
    defined: tuple[str, ...] = ()


def read_run(run: RunResult, source: str) -> Answers:
    """A sandbox run's frames, each re-typed here: the load frame says what the submission defines or
    why it could not load; each reply frame becomes a Reply, each call the sandbox stopped a failed one."""
    if run.load is None or run.load.kind != "loaded":
        failure = run.failure
        meta, _ = _validate(protocol.LoadErrorMeta, run.load.meta) if run.load is not None else (None, None)
        if meta is not None:
            return Answers(load_error=Reply(False, error_type=meta.error_type[:80], error=meta.message[:600],
                                            lineno=meta.lineno))
        kind = failure.kind if failure else PROTOCOL_ERROR if run.load is not None else "process_exit"
        return Answers(load_error=Reply(False, error_type=kind, error=failure.message if failure else "no valid reply"))
    loaded, refused = _validate(protocol.LoadedMeta, run.load.meta)
    if loaded is None:
        return Answers(load_error=Reply(False, error_type=PROTOCOL_ERROR,
                                        error=f"the 'loaded' frame's fields are not the protocol's: {refused}"))
    replies = {pid: Reply.from_frame(frame) for pid, frame in run.replies.items()}
    for reply in replies.values():
        if not reply.ok:
            reply.where = at_line(source, reply.lineno)
    for pid, failure in run.failures.items():
        replies[pid] = Reply(False, error_type=failure.kind, error=failure.message, skipped=failure.skipped)
    return Answers(replies, None, tuple(loaded.names), tuple(loaded.defined))
