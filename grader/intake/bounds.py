"""How far intake reads a file: every parse of what a student handed in runs under caps on size, depth
and statements, and any failure becomes a reason, never an exception that stops the class.

Intake parses submissions in the grader's own process, before anything runs in the sandbox: a file that
stops a parser (100,000 nested minus signs make `ast.parse` raise MemoryError, JSON or YAML nested as
deep a RecursionError) would otherwise stop every student's grading. The caps are counts, not a clock,
so a file is read the same way on every machine and under any load; with the size caps of `files.py`
and converters that are linear in their input, they are what bounds intake's time.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import TypeVar

MAX_NESTING = 100  # nesting of a syntax tree: the reference and the grader's own modules need 12 to 18
MAX_STATEMENTS = 20_000  # statements in one source or notebook; a solution has about 50
MAX_SOURCE_CHARS = 4 << 20  # text handed to the parser at once (a source is capped at 1 MiB of bytes)

T = TypeVar("T")


class Unreadable(ValueError):
    """What intake will not read, with the reason written to skipped.csv and the student's row."""


def parse_python(text: str) -> ast.Module:
    """The syntax tree of a source, within the caps. SyntaxError is the file's own (it is graded, and
    the student is told where); everything else the parser cannot hold is `Unreadable`."""
    if len(text) > MAX_SOURCE_CHARS:
        raise Unreadable(f"{len(text)} characters of Python, over the {MAX_SOURCE_CHARS} the grader parses")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        raise
    except (MemoryError, RecursionError):
        raise Unreadable("Python nested too deeply for its own parser (it gives up with MemoryError or "
                         "RecursionError); no solution is written that way") from None
    except ValueError as exc:  # NUL bytes (Python 3.11), among others
        raise SyntaxError(str(exc)) from None
    depth, statements = _shape(tree)
    if depth > MAX_NESTING:
        raise Unreadable(f"Python nested more than {MAX_NESTING} levels deep; a solution needs about 15")
    if statements > MAX_STATEMENTS:
        raise Unreadable(f"more than {MAX_STATEMENTS} statements; a solution has about 50")
    return tree


def _shape(tree: ast.AST) -> tuple[int, int]:
    """(the depth of the tree, its statements), walked without recursion and stopped past the caps."""
    deepest, statements = 0, 0
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        statements += isinstance(node, ast.stmt)
        if deepest > MAX_NESTING or statements > MAX_STATEMENTS:
            break
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest, statements


def load_json(text: str) -> object:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not readable JSON: {exc}") from None
    except RecursionError:
        raise Unreadable("JSON nested too deeply to read") from None
    except (MemoryError, ValueError) as exc:  # e.g. an integer past Python's 4,300-digit limit
        raise Unreadable(f"JSON the grader cannot hold ({type(exc).__name__})") from None


def reading(what: str, read: Callable[[], T]) -> T:
    """`read()`, with any failure it did not name itself turned into `Unreadable`: the last line of
    defence, so that one file's surprise is that file's skipped entry."""
    try:
        return read()
    except Unreadable:
        raise
    except ValueError as exc:  # our readers' own refusals say why in their message
        raise Unreadable(str(exc) or f"the grader could not read {what} (ValueError)") from None
    except Exception as exc:  # noqa: BLE001 - whatever a hostile file makes a reader raise
        raise Unreadable(f"the grader could not read {what} ({type(exc).__name__})") from None
