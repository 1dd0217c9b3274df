"""Frames between the grader and a child: a length-prefixed JSON header, then raw tensor bytes.

Nothing from a child is ever unpickled: a header is JSON checked by a pydantic model, and each
tensor is rebuilt from bytes whose dtype comes from an allow-list and whose size is capped.
"""

from __future__ import annotations

import json
import math
import os
import select
import time
from dataclasses import dataclass, field
from typing import Any

import torch
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import from_json

from grader.sandbox.framing import LENGTH, length_of, prefixed
from grader.vocabulary import DTypeName

MAX_HEADER_BYTES = 1 << 20
MAX_FRAME_BYTES = 64 << 20
# A child's header: the runner's replies need at most ~15 KiB (an error's 600-character message and
# 12 class names of 80, escaped as JSON, the slips, the ready-made operators it tried), its 'loaded'
# frame at most ~9 KiB (the names it defines, `runner.DEFINED_BYTES`).
REPLY_HEADER_BYTES = 32 << 10
# Nesting of a header's `meta`: the runner's is two deep ({"slips": [...]}); JSON's own limit is ~200.
MAX_META_DEPTH = 4

DTYPES: dict[str, torch.dtype] = {
    "float64": torch.float64,
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int64": torch.int64,
    "int32": torch.int32,
    "bool": torch.bool,
}
_NAMES = {v: k for k, v in DTYPES.items()}
# json.dumps(header, allow_nan=False, default=str), its encoder made once instead of once a frame.
_HEADER_JSON = json.JSONEncoder(allow_nan=False, default=str)


class WireError(Exception):
    """A frame that is malformed, oversized or truncated."""


class TensorSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200)
    dtype: DTypeName
    shape: list[int] = Field(max_length=8)
    nbytes: int = Field(ge=0, le=MAX_FRAME_BYTES)


class WireHeader(BaseModel):
    """The JSON part of a frame. `meta` carries only JSON values: strings, numbers, lists, dicts."""

    model_config = ConfigDict(extra="forbid")
    kind: str = Field(max_length=64)
    meta: dict[str, Any] = {}
    tensors: list[TensorSpec] = Field(default=[], max_length=256)


@dataclass
class Frame:
    kind: str
    meta: dict[str, Any] = field(default_factory=dict)
    tensors: dict[str, torch.Tensor] = field(default_factory=dict)
    wire_bytes: int = 0  # what it took on the wire (length, header and tensors), set by read_frame
    # Its bytes, kept by a frame that never changes (the visible probes' calls, the same for every submission).
    # Not an init field: a copy made with dataclasses.replace, whatever it changed, is encoded afresh.
    encoded: bytes | None = field(default=None, init=False, repr=False, compare=False)


def encode(frame: Frame) -> bytes:
    """The frame as bytes. The header is a plain dict here: the reading side validates it
    (`WireHeader`), so building the models on this side too only cost each call its time."""
    specs, blobs = [], []
    for name, t in frame.tensors.items():
        t = t.detach().cpu().contiguous()
        if t.dtype not in _NAMES:
            raise WireError(f"tensor {name!r} has dtype {t.dtype}, which the wire does not carry")
        # numpy has no bfloat16: ship its raw 16-bit pattern instead. The array's own buffer is joined
        # below, not first copied out of it.
        blob = (t.view(torch.int16) if t.dtype == torch.bfloat16 else t).numpy()
        specs.append({"name": name, "dtype": _NAMES[t.dtype], "shape": list(t.shape), "nbytes": blob.nbytes})
        blobs.append(blob)
    head = _HEADER_JSON.encode({"kind": frame.kind, "meta": frame.meta, "tensors": specs}).encode()
    return b"".join([prefixed(head), *blobs])


def wire_bytes(frame: Frame) -> bytes:
    """The frame's bytes: the ones it keeps (`Frame.encoded`), else encoded now."""
    return frame.encoded if frame.encoded is not None else encode(frame)


def write_frame(fd: int, frame: Frame) -> None:
    write_all(fd, encode(frame))


def write_all(fd: int, data: bytes) -> None:
    data = memoryview(data)
    while data:
        n = os.write(fd, data)
        data = data[n:]


def _read_exact(fd: int, n: int, deadline: float | None, ready_first: bool = False) -> bytes:
    """`ready_first`: `fd` is non-blocking, so what is in the pipe is read before any wait (a frame's
    bytes mostly are, once its first byte is: no `select` for them); only missing bytes wait, and those
    no longer than the deadline."""
    chunks, got = [], 0
    while got < n:
        if ready_first:
            try:
                chunk = os.read(fd, min(n - got, 1 << 20))
            except BlockingIOError:
                _wait(fd, deadline)
                continue
        else:
            if deadline is not None:
                _wait(fd, deadline)
            chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the pipe")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _wait(fd: int, deadline: float | None) -> None:
    """Until `fd` is readable; TimeoutError once the deadline passes first (None: no deadline)."""
    if deadline is None:
        select.select([fd], [], [])
        return
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no complete frame before the deadline")
    ready, _, _ = select.select([fd], [], [], left)
    if not ready:
        raise TimeoutError("no complete frame before the deadline")


def decode_header(head: bytes) -> WireHeader:
    try:
        return WireHeader.model_validate_json(head)
    except ValidationError as exc:
        raise WireError(f"malformed frame header: {exc.errors()[0]['msg']}") from None


@dataclass(frozen=True)
class Bounds:
    """What one reply may hold, derived from the call that asked for it: no dimension above
    `dim`, no tensor above `numel` elements, no frame (header and tensors) above `nbytes`, no
    header above `header`. A reply of shape (0, T, T) is tiny on the wire but would make a check
    build a T x T mask: refused here."""

    dim: int
    numel: int
    nbytes: int
    header: int = REPLY_HEADER_BYTES


def _depth_over(value: Any, limit: int) -> bool:
    """Whether `value` nests deeper than `limit` containers (iterative: no recursion to exhaust)."""
    todo = [(value, 0)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            if depth >= limit:
                return True
            todo.extend((x, depth + 1) for x in (item.values() if isinstance(item, dict) else item))
    return False


def _numel(spec: TensorSpec, bounds: Bounds | None) -> int:
    numel = 1
    for s in spec.shape:
        if s < 0:
            raise WireError(f"tensor {spec.name!r} has a negative dimension")
        if bounds is not None and s > bounds.dim:
            raise WireError(f"tensor {spec.name!r} has shape {spec.shape}: a dimension over {bounds.dim}")
        numel *= s
    if bounds is not None and numel > bounds.numel:
        raise WireError(f"tensor {spec.name!r} has {numel} elements, over the {bounds.numel} this call allows")
    if numel * DTYPES[spec.dtype].itemsize != spec.nbytes:
        raise WireError(f"tensor {spec.name!r}: {spec.nbytes} bytes do not fit shape {spec.shape}")
    return numel


def _tensor(spec: TensorSpec, blob: bytes | memoryview, numel: int) -> torch.Tensor:
    dtype = DTYPES[spec.dtype]
    if numel == 0:
        return torch.empty(spec.shape, dtype=dtype)
    raw_dtype = torch.int16 if dtype == torch.bfloat16 else dtype
    t = torch.frombuffer(bytearray(blob), dtype=raw_dtype).reshape(spec.shape)
    return t.view(torch.bfloat16) if dtype == torch.bfloat16 else t


def read_frame(
    fd: int, deadline: float | None = None, max_bytes: int = MAX_FRAME_BYTES, bounds: Bounds | None = None,
    *, nonblocking: bool = False,
) -> Frame:
    """Read one frame; raises WireError, TimeoutError or EOFError, never anything from the peer.
    Every size is checked against the header before a byte of tensor data is read. `nonblocking`: `fd`
    is (the grader's end of a child's pipe), so each read tries before it waits."""
    header_cap = MAX_HEADER_BYTES
    if bounds is not None:
        max_bytes = min(max_bytes, bounds.nbytes)
        header_cap = min(header_cap, bounds.header, bounds.nbytes)
    hlen = length_of(_read_exact(fd, LENGTH.size, deadline, nonblocking))
    if hlen > header_cap:
        raise WireError(f"frame header of {hlen} bytes is over the {header_cap}-byte cap")
    header = decode_header(_read_exact(fd, hlen, deadline, nonblocking))
    if _depth_over(header.meta, MAX_META_DEPTH):
        raise WireError(f"frame header nested deeper than {MAX_META_DEPTH} levels")
    total = sum(s.nbytes for s in header.tensors)
    if total + (hlen if bounds is not None else 0) > max_bytes:
        raise WireError(f"frame of {total + hlen} bytes is over the {max_bytes}-byte cap")
    numels = [_numel(spec, bounds) for spec in header.tensors]
    body = memoryview(_read_exact(fd, total, deadline, nonblocking)) if total else memoryview(b"")  # one read, not one per tensor
    tensors: dict[str, torch.Tensor] = {}
    start = 0
    for spec, numel in zip(header.tensors, numels, strict=True):
        if spec.name in tensors:
            raise WireError(f"tensor {spec.name!r} appears twice in one frame")
        tensors[spec.name] = _tensor(spec, body[start : start + spec.nbytes], numel)
        start += spec.nbytes
    return Frame(kind=header.kind, meta=header.meta, tensors=tensors, wire_bytes=LENGTH.size + hlen + total)


def _read_into(fd: int, buf: bytearray) -> None:
    view, got = memoryview(buf), 0
    while got < len(buf):
        n = os.readv(fd, [view[got:]])
        if not n:
            raise EOFError("the other side closed the pipe")
        got += n


def _strides(shape: list[int]) -> list[int]:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return strides[::-1]


def read_call(fd: int) -> Frame:
    """One frame the grader wrote, read in the child: the grader's own output, so not model-checked as a
    child's frames are (`read_frame`), which cost each of a submission's ~155 calls a third of its time.
    The header is parsed by the JSON parser `read_frame`'s model uses; the tensors are writable views
    of one buffer the size of the frame's tensor bytes, each contiguous; a frame that does not fit its
    header raises, and the child's death says so."""
    hlen = length_of(_read_exact(fd, LENGTH.size, None))
    if hlen > MAX_HEADER_BYTES:
        raise WireError(f"frame header of {hlen} bytes is over the {MAX_HEADER_BYTES}-byte cap")
    header = from_json(_read_exact(fd, hlen, None))
    specs = header.get("tensors", [])
    total = sum(spec["nbytes"] for spec in specs)
    if total > MAX_FRAME_BYTES:
        raise WireError(f"frame of {total + hlen} bytes is over the {MAX_FRAME_BYTES}-byte cap")
    body = bytearray(total)
    _read_into(fd, body)
    tensors: dict[str, torch.Tensor] = {}
    flat: dict[torch.dtype, torch.Tensor] = {}  # the body as one tensor per dtype: a view of it per tensor
    start = 0
    for spec in specs:
        dtype, shape, nbytes = DTYPES[spec["dtype"]], spec["shape"], spec["nbytes"]
        raw = torch.int16 if dtype == torch.bfloat16 else dtype
        size = raw.itemsize
        if not nbytes:
            t = torch.empty(shape, dtype=raw)
        elif start % size or total % size:
            t = torch.frombuffer(body, dtype=raw, count=nbytes // size, offset=start).reshape(shape)
        else:
            if raw not in flat:
                flat[raw] = torch.frombuffer(body, dtype=raw)
            if nbytes != math.prod(shape) * size:
                raise WireError(f"tensor {spec['name']!r}: {nbytes} bytes do not fit shape {shape}")
            t = flat[raw].as_strided(shape, _strides(shape), start // size)
        tensors[spec["name"]] = t.view(torch.bfloat16) if dtype == torch.bfloat16 else t
        start += nbytes
    return Frame(kind=header["kind"], meta=header.get("meta", {}), tensors=tensors,
                 wire_bytes=LENGTH.size + hlen + total)
