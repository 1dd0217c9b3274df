"""Grading and tutoring harness for the causal self-attention chapter.

`from grader import check` is resolved on first use, so `import grader` (and the CLI) stays cheap.
"""

from __future__ import annotations

__all__ = ["check"]


def __getattr__(name: str):
    if name == "check":
        from grader.notebook import check

        return check
    raise AttributeError(f"module 'grader' has no attribute {name!r}")
