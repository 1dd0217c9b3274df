"""Words every layer shares, defined once at the bottom of the house.

This module imports nothing from grader (nor torch): probes, sandbox, checks, diagnosis, rubric,
report, batch and quiz all read their shared words from here, so no input imports an output.
"""

from __future__ import annotations

from typing import Literal, get_args

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
# How every check of a file that did not load begins its feedback (the terminal tells such a file once).
NOT_RUN = "The submission could not be run: "
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

# Error kinds: how a call (or the import) ended without a result, when it was not an exception the
# submission's code raised (a reply names those by their class, "ValueError"). Declared once, here.
# The sandbox's verdicts on the process, whatever the code was doing:
FailureKind = Literal["timeout", "memory_limit", "process_exit", "protocol_error"]
TIMEOUT, MEMORY_LIMIT, PROCESS_EXIT, PROTOCOL_ERROR = get_args(FailureKind)
MISSING = "missing"  # no reply came back for a probe
UNREADABLE = "unreadable"  # the grader could not read the file
SUBMISSION_REFUSED = "SubmissionRefused"  # the sandbox would not open it (a link, too large)
# Raised by the runner on the submission's behalf, under a name of ours:
FORBIDDEN_API = "ForbiddenAPI"  # it called PyTorch's ready-made attention
WRONG_RETURN_TYPE = "WrongReturnType"  # it returned something other than the contract's pair
NOT_IMPLEMENTED = "NotImplementedError"  # a stub not written yet (the template's own raise)
ErrorKind = Literal["timeout", "memory_limit", "process_exit", "protocol_error", "missing", "unreadable",
                    "SubmissionRefused", "ForbiddenAPI", "WrongReturnType"]
# Verdicts on the whole process: they say nothing about what the code computes.
PROCESS_FAILURES: tuple[str, ...] = (*get_args(FailureKind), MISSING)
# Reply failures that are no exception of the submission's own (the sandbox's verdicts, stubs, the contract).
NOT_RAISED: tuple[str, ...] = (*PROCESS_FAILURES, NOT_IMPLEMENTED, FORBIDDEN_API, WRONG_RETURN_TYPE)

# The isolation level a sandbox reached, strongest first (grader/sandbox/__init__.py says what each enforces).
Isolation = Literal["namespaces+uid", "namespaces+userns", "uid+rlimits", "rlimits-only"]


class Model(BaseModel):
    """The base of every typed boundary: an unknown field is an error, never silently dropped."""

    model_config = ConfigDict(extra="forbid")


class FrozenModel(Model):
    """A Model that cannot change once loaded (a rubric serves every submission of a class run)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
