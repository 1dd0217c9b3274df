"""Observation vectors: what an implementation returned on the visible probes, flattened to keys.

Two implementations with the same bug give the same vector, however differently they are written,
so a student's vector can be matched against each catalogue entry's without running its code.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container
from dataclasses import dataclass
from pathlib import Path

import torch
from pydantic import BaseModel

from grader.probes import Probe
from grader.probes.replies import Reply
from grader.sandbox import answer_trusted

# Loose enough for one bug written two ways (float32 sums in another order), tight enough to
# separate one bug from another.
MATCH_RTOL, MATCH_ATOL = 1e-5, 1e-7


class TensorValue(BaseModel):
    shape: list[int]
    data: list[float | str]  # "nan", "inf", "-inf" spelled out: JSON has no NaN
    step: int = 1  # data holds every step-th element of the flattened tensor (a stored sample)

    def floats(self, step: int = 1) -> list[float] | None:
        """The flattened values at every step-th position, or None when this holds a different sample."""
        data = self.data if self.step == step else self.data[::step] if self.step == 1 else None
        return None if data is None else [float(x) for x in data]


Observation = TensorValue | str | int


@dataclass(frozen=True, slots=True)
class Sample:
    """A stored tensor observation made ready to compare: its shape and every step-th value."""

    shape: tuple[int, ...]
    step: int
    values: tuple[float, ...]


Expected = Sample | str | int
# A fingerprint as the matcher reads it: (key, expected value) pairs, made once per catalogue.
Compiled = tuple[tuple[str, Expected], ...]


def compile_fingerprint(fingerprint: dict[str, Observation]) -> Compiled:
    return tuple((key, Sample(tuple(v.shape), v.step, tuple(float(x) for x in v.data))
                  if isinstance(v, TensorValue) else v) for key, v in fingerprint.items())


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


def observe_replies(replies: dict[str, object], keys: Container[str] | None = None,
                    tensor: Callable[[torch.Tensor], object] = _tensor_value) -> dict[str, Observation]:
    """Flatten replies (anything with ok, error_type, tensors, meta) into one observation vector;
    with `keys`, only the tensors a comparison will look at are read out (by `tensor`)."""
    vector: dict[str, Observation] = {}
    for pid, r in replies.items():
        vector[f"{pid}:status"] = "ok" if r.ok else f"error:{r.error_type}"
        for name, t in sorted(r.tensors.items()):
            if keys is None or f"{pid}:{name}" in keys:
                vector[f"{pid}:{name}"] = tensor(t)
            if name == "out":
                vector[f"{pid}:out.dtype"] = str(t.dtype)
        fields = r.meta.model_dump(exclude_none=True) if r.meta is not None else {}  # as the catalogue was observed
        for name in ("grad", "grad_missing", "n_params", "layers"):
            if name in fields:
                value = fields[name]
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


class StudentVector:
    """A submission's observations where some fingerprint looks, each sample read out once: a
    class run compares every buggy submission with every catalogue entry. A tensor is held as
    (shape, every value) rather than a TensorValue (its values read out at their first comparison): never
    stored, only compared."""

    def __init__(self, vector: dict[str, object]) -> None:
        self.vector = vector
        self._samples: dict[tuple[str, int], list[float]] = {}

    @classmethod
    def of_replies(cls, replies: dict[str, object], keys: Container[str]) -> StudentVector:
        # The values are read out at their first comparison: a match stopped early never reads most of them.
        return cls(observe_replies(replies, keys, tensor=lambda t: (tuple(t.shape), t)))

    def same(self, key: str, expected: Expected) -> bool:
        """`not differs(vector[key], stored)`, for a stored value in its compiled form."""
        got = self.vector.get(key)
        if not isinstance(expected, Sample):
            return got == expected  # a tensor's (shape, values) equals no stored str or int
        if not isinstance(got, tuple) or got[0] != expected.shape:
            return False
        sample = self._samples.get((key, expected.step))
        if sample is None:  # the submission's values are full tensors: any stored step can be read off them
            values = got[1]
            if isinstance(values, torch.Tensor):
                values = values.detach().double().flatten().tolist()
                self.vector[key] = (got[0], values)
            sample = self._samples[key, expected.step] = values[::expected.step]
        return len(sample) == len(expected.values) and _close(sample, expected.values)

    def match_fraction(self, fingerprint: Compiled) -> float:
        if not fingerprint:
            return 0.0
        return sum(self.same(key, expected) for key, expected in fingerprint) / len(fingerprint)

    def reaches(self, fingerprint: Compiled, threshold: float) -> bool:
        """`match_fraction(fingerprint) >= threshold`, read no further than the keys left can reach it:
        a regrade asks it of every catalogue entry, and most are missed within their first keys."""
        n = len(fingerprint)
        if not n:
            return 0.0 >= threshold
        hits = 0
        for i, (key, expected) in enumerate(fingerprint):
            if (hits + n - i) / n < threshold:  # even every key left matching would stay under it
                return False
            hits += self.same(key, expected)
        return hits / n >= threshold


def match_fraction(student: dict[str, Observation], fingerprint: dict[str, Observation]) -> float:
    """The share of a fingerprint's observations a full observation vector (`observe_file`) reproduces."""
    vector = {k: (tuple(v.shape), v.floats()) if isinstance(v, TensorValue) and v.step == 1 else v
              for k, v in student.items()}
    return StudentVector(vector).match_fraction(compile_fingerprint(fingerprint))
