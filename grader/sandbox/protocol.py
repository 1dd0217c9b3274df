"""What the runner's frames may say, checked on the grader's side: a child can write any bytes
on its pipe (even before the runner speaks), so a frame that lies about its own shape becomes
a protocol error for that call, never a crash of the grader. A field no model here declares is
refused the same way (never dropped unseen): what the runner sends and what the grader reads
are declared in one place."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

Text = str  # free text is truncated where it is shown, not here


class _Meta(BaseModel):
    # A list or dict default is a factory here, not a value: pydantic deep-copies (in Python) a mutable
    # default for every instance that leaves it out, and most reply frames leave most of them out.
    model_config = ConfigDict(extra="forbid")


class LoadedMeta(_Meta):
    names: list[str] = Field(default_factory=list, max_length=100)
    defined: list[str] = Field(default_factory=list, max_length=1000)


class LoadErrorMeta(_Meta):
    error_type: Text = "unknown"
    message: Text = ""
    lineno: int | None = None
    error_mro: list[str] = Field(default_factory=list, max_length=12)  # the exception's classes, most derived first


class LayerInfo(_Meta):
    type: Text = ""
    bias: bool = False
    shape: list[int] = Field(default_factory=list)


class ReplyMeta(_Meta):
    id: str
    ok: bool
    error_type: Text | None = None
    error_message: Text = ""
    error_mro: list[str] = Field(default_factory=list, max_length=12)  # the exception's classes, most derived first
    # Return-contract slips the runner read through (`lone_out`: `return out` alone, see runner._weights_read).
    slips: list[Literal["list", "swapped", "extra_dim", "lone_out"]] = Field(default_factory=list)
    grad: Literal["ok", "detached", "shape"] | None = None
    grad_missing: list[str] = Field(default_factory=list)
    n_params: int | None = None
    layers: dict[str, LayerInfo] = Field(default_factory=dict)
    fused: list[str] = Field(default_factory=list, max_length=64)  # fused attention operators the call attempted
    lineno: int | None = Field(None, ge=1, le=1_000_000)  # the submission's innermost line when the call raised


def parse(model: type[_Meta], meta: object) -> _Meta | None:
    try:
        return model.model_validate(meta)
    except ValidationError:
        return None
