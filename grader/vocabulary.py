"""Words every layer shares, defined once at the bottom of the house.

This module imports nothing from grader (nor torch): probes, sandbox, checks, diagnosis, rubric,
report, batch and quiz all read their shared words from here, so no input imports an output.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

# How a check ended for a submission; "skipped" when a prerequisite did not pass.
Status = Literal["passed", "failed", "error", "skipped"]
# Gradescope's visibility rule, used by the rubric and the report alike.
Visibility = Literal["visible", "hidden", "after_due_date", "after_published"]
# Who reads a report: a student sees only visible checks, an instructor every one.
Audience = Literal["student", "instructor"]
# Every dtype the wire carries; a tolerance is set only for the floating ones.
DTypeName = Literal["float64", "float32", "float16", "bfloat16", "int64", "int32", "bool"]
FloatDTypeName = Literal["float64", "float32", "float16", "bfloat16"]
# What a submission must define: the chapter's function and its module.
ENTRY_NAMES = ("causal_attention", "SingleHead")

# Chapter sections a check or a diagnosis sends the student back to.
BASELINE = "Part 1: a baseline you already understand"
BUILD = "Build it"
MATCH = "Match every receiving position with every source"
HIDE = "Hide future positions before normalization"
SHARES = "Turn scores into shares"
DELIVER = "Deliver the weighted values"
HEAD = "Part 2: the full head"
PROVE_TEETH = "Part 3: prove the mask has teeth"
TRAINABLE = "Part 4: connect to trainable code"

# The isolation level a sandbox reached, strongest first (grader/sandbox/__init__.py says what each enforces).
Isolation = Literal["namespaces+uid", "namespaces+userns", "uid+rlimits", "rlimits-only"]


class Model(BaseModel):
    """The base of every typed boundary: an unknown field is an error, never silently dropped."""

    model_config = ConfigDict(extra="forbid")


class FrozenModel(Model):
    """A Model that cannot change once loaded (a rubric serves every submission of a class run)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
