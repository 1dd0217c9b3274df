"""`check(causal_attention)` in a notebook: grade the kernel's own definitions, isolated like a file.

The objects are turned back into source (with the notebook helpers they call), written to a
temporary file and handed to the same self-check as `python -m grader check FILE`: the student's
code must still run in the sandbox, never in the grader's process.
"""

from __future__ import annotations

import ast
import inspect
import linecache
import sys
import tempfile
import textwrap
import types
from dataclasses import dataclass
from pathlib import Path

from grader.paths import hint_state
from grader.report.models import Report

HEADER = "import math\n\nimport torch\nimport torch.nn.functional as F\nfrom torch import nn\n"
# Names the header already provides; a notebook's own `torch` must not be re-imported under another name.
_HEADER_NAMES = {"math", "torch", "F", "nn"}
_CONSTANT_TYPES = (int, float, str, bool)


class SourceNotFound(Exception):
    """The kernel has no source text for an object (plain REPL, exec, C extension)."""


@dataclass
class CheckResult:
    """What `check()` returns: a notebook displays it as the HTML report, a REPL prints a summary."""

    report: Report | None = None
    problem: str | None = None
    source: str | None = None

    def _repr_html_(self) -> str:
        from html import escape

        if self.report is None:
            return (f'<div class="grader-report" style="border-left:5px solid #b42318;padding:.5em 1em">'
                    f"<b>The grader could not check this.</b><p>{escape(self.problem or '')}</p></div>")
        from grader.report.html import render_fragment

        return render_fragment(self.report)

    def __repr__(self) -> str:
        if self.report is None:
            return f"check: not run. {self.problem}"
        r = self.report
        bad = [c.title for c in r.checks if c.status in ("failed", "error")]
        tail = f"; needs work: {', '.join(bad)}" if bad else "; all checks passed"
        from grader.report.view import points_text

        return f"check: {points_text(r.score, r.max_score)}{tail}"

    @property
    def passed(self) -> bool:
        return self.report is not None and all(c.status in ("passed", "skipped") for c in self.report.checks)


def _class_source(cls: type) -> str:
    """inspect.getsource fails for classes defined in a notebook on Python 3.11 (no __main__.__file__).

    The methods still know their cell, so find the class statement in that cell's text."""
    for member in vars(cls).values():
        func = getattr(member, "__func__", member)
        if not isinstance(func, types.FunctionType) or func.__qualname__.split(".")[0] != cls.__name__:
            continue
        filename = func.__code__.co_filename
        text = "".join(linecache.getlines(filename))
        if not text:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == cls.__name__ and \
                    node.lineno <= func.__code__.co_firstlineno <= (node.end_lineno or node.lineno):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                return "".join(text.splitlines(keepends=True)[start - 1:node.end_lineno])
    raise SourceNotFound(f"no source text for class {cls.__name__}")


def _require_definition(obj: object) -> None:
    if not isinstance(obj, (types.FunctionType, type)):
        name = getattr(obj, "__name__", None) or repr(obj)[:60]
        raise TypeError(f"check() takes the functions and classes you wrote (e.g. causal_attention, "
                        f"SingleHead); {name} is not one (it is of type {type(obj).__name__}).")


def source_of(obj: object) -> str:
    _require_definition(obj)
    name = obj.__name__
    try:
        text = inspect.getsource(obj)
    except (OSError, TypeError):
        if not isinstance(obj, type):
            raise SourceNotFound(f"no source text for {name}") from None
        text = _class_source(obj)
    return textwrap.dedent(text)


def _namespace(obj: object) -> dict:
    if isinstance(obj, types.FunctionType):
        return obj.__globals__
    module = sys.modules.get(getattr(obj, "__module__", "") or "")
    return vars(module) if module is not None else {}


def _free_names(source: str) -> set[str]:
    tree = ast.parse(source)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _defined_names(source: str) -> set[str]:
    tree = ast.parse(source)
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def collect_source(*objects: object) -> str:
    """Source of the objects plus every notebook function, class, constant or module alias they use."""
    blocks: list[str] = []  # dependencies first, so class bases and decorators exist when used
    imports: list[str] = []
    done: set[str] = set()
    main = vars(sys.modules["__main__"])

    def visit(obj: object, namespace: dict) -> None:
        name = obj.__name__
        if name in done:
            return
        done.add(name)
        text = source_of(obj)
        for ref in sorted(_free_names(text) - _defined_names(text) - _HEADER_NAMES - done):
            value = namespace.get(ref, main.get(ref))
            if isinstance(value, (types.FunctionType, type)):
                module = getattr(value, "__module__", None)
                if module == getattr(obj, "__module__", None):
                    visit(value, _namespace(value))
                    if value.__name__ != ref:
                        done.add(ref)
                        blocks.append(f"{ref} = {value.__name__}\n")
                elif module and module != "builtins":
                    # Imported from a library (e.g. torch.nn.functional): import it the same way.
                    done.add(ref)
                    imports.append(f"from {module} import {value.__name__}"
                                   + (f" as {ref}" if value.__name__ != ref else ""))
            elif isinstance(value, types.ModuleType):
                done.add(ref)
                imports.append(f"import {value.__name__}" + (f" as {ref}" if value.__name__ != ref else ""))
            elif isinstance(value, _CONSTANT_TYPES):
                # Small settings such as D_K = 2; anything bigger belongs inside the function.
                done.add(ref)
                blocks.append(f"{ref} = {value!r}\n")
        blocks.append(text)

    for obj in objects:
        _require_definition(obj)
    for obj in objects:
        visit(obj, _namespace(obj))
    head = HEADER + "".join(f"{line}\n" for line in imports)
    return head + "\n\n" + "\n\n".join(block.rstrip() + "\n" for block in blocks)


def check(*objects: object) -> CheckResult:
    """Grade your notebook's causal_attention / SingleHead with the same checks as `grader check FILE`."""
    try:
        return _check(objects)
    except KeyboardInterrupt:
        # Raised afresh, without what was being handled when the signal landed (inspect's OSError, say):
        # IPython could not format that chained traceback and reported the interrupted cell as "ok".
        raise KeyboardInterrupt("check() was interrupted; run it again to grade your code") from None


def _check(objects: tuple[object, ...]) -> CheckResult:
    if not objects:
        return CheckResult(problem="Pass what you wrote, e.g. check(causal_attention) or check(SingleHead).")
    try:
        source = collect_source(*objects)
    except SourceNotFound as exc:
        return CheckResult(problem=(
            f"Python has {exc}: it was probably typed into a plain Python prompt, where the text of a "
            "definition is not kept. Define it in a notebook cell or a .py file and run "
            "`python -m grader check FILE` instead."))
    except (TypeError, SyntaxError) as exc:
        return CheckResult(problem=str(exc))
    try:
        from grader.grade import self_check
    except ImportError:
        return CheckResult(problem="This installation of the grader has no self-check (grader.grade).",
                           source=source)
    # The temporary path means nothing to the student; name what they passed instead.
    label = "notebook: " + ", ".join(getattr(o, "__name__", "?") for o in objects)
    with tempfile.TemporaryDirectory(prefix="grader-notebook-") as tmp:
        path = Path(tmp) / "notebook_submission.py"
        path.write_text(source, encoding="utf-8")
        # A stable key, so each failing run of the same check(...) reveals the next hint.
        report = self_check(path, hint_state_path=hint_state(), hint_key=label)
    return CheckResult(report=report.model_copy(update={"submission": label}), source=source)
