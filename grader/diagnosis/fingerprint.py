"""Observation vectors: what an implementation returned on the visible probes, flattened to keys.

Two implementations with the same bug give the same vector, however differently they are written,
so a student's vector can be matched against each catalogue entry's without running its code.
"""

from __future__ import annotations

import math
from collections.abc import Container
from pathlib import Path

import torch
from pydantic import BaseModel, PrivateAttr

from grader.checks.observations import Reply
from grader.probes import Probe
from grader.sandbox import answer_trusted

# Loose enough for one bug written two ways (float32 sums in another order), tight enough to
# separate one bug from another.
MATCH_RTOL, MATCH_ATOL = 1e-5, 1e-7


class TensorValue(BaseModel):
    shape: list[int]
    data: list[float | str]  # "nan", "inf", "-inf" spelled out: JSON has no NaN
    step: int = 1  # data holds every step-th element of the flattened tensor (a stored sample)
    # The numbers at each sample step, made once: a catalogue entry is compared with every
    # submission of a class, and a submission's vector with every entry.
    _floats: dict[int, list[float] | None] = PrivateAttr(default_factory=dict)

    def floats(self, step: int = 1) -> list[float] | None:
        """The flattened values at every step-th position, or None when this holds a different sample."""
        if step not in self._floats:
            data = self.data if self.step == step else self.data[::step] if self.step == 1 else None
            self._floats[step] = None if data is None else [float(x) for x in data]
        return self._floats[step]


Observation = TensorValue | str | int


def _tensor_value(t: torch.Tensor) -> TensorValue:
    flat = t.detach().double().flatten().tolist()
    return TensorValue(shape=list(t.shape), data=[x if math.isfinite(x) else str(x) for x in flat])


def _close(xs: list[float], ys: list[float]) -> bool:
    """torch.allclose(x, y, MATCH_RTOL, MATCH_ATOL, equal_nan=True) on a few floats, without tensors."""
    for x, y in zip(xs, ys, strict=True):
        if x == y or (x != x and y != y):  # equal (infinities included), or both NaN
            continue
        if not abs(x - y) <= MATCH_ATOL + MATCH_RTOL * abs(y):  # NaN against a number fails here
            return False
    return True


def observe_replies(replies: dict[str, object], keys: Container[str] | None = None) -> dict[str, Observation]:
    """Flatten replies (anything with ok, error_type, tensors, meta) into one observation vector;
    with `keys`, only the tensors a comparison will look at are read out."""
    vector: dict[str, Observation] = {}
    for pid, r in replies.items():
        vector[f"{pid}:status"] = "ok" if r.ok else f"error:{r.error_type}"
        for name, t in sorted(r.tensors.items()):
            if keys is None or f"{pid}:{name}" in keys:
                vector[f"{pid}:{name}"] = _tensor_value(t)
            if name == "out":
                vector[f"{pid}:out.dtype"] = str(t.dtype)
        for name in ("grad", "grad_missing", "n_params", "layers"):
            if name in r.meta:
                value = r.meta[name]
                vector[f"{pid}:{name}"] = value if isinstance(value, int | str) else repr(value)
    return vector


def differs(a: Observation | None, b: Observation | None) -> bool:
    if isinstance(a, TensorValue) and isinstance(b, TensorValue):
        step = max(a.step, b.step)  # a stored sample is compared with the same elements of a full tensor
        x, y = a.floats(step), b.floats(step)
        if a.shape != b.shape or x is None or y is None or len(x) != len(y):
            return True
        return not _close(x, y)
    return a != b


def observe_file(path: Path, probes: list[Probe]) -> dict[str, Observation]:
    """Run a TRUSTED implementation (the reference or a catalogue entry) in this process."""
    frames = answer_trusted(path, {probe.id: probe.call for probe in probes})
    return observe_replies({pid: Reply.from_frame(frame) for pid, frame in frames.items()})  # the lens students get


def match_fraction(student: dict[str, Observation], fingerprint: dict[str, Observation]) -> float:
    if not fingerprint:
        return 0.0
    same = sum(not differs(student.get(key), value) for key, value in fingerprint.items())
    return same / len(fingerprint)
