"""A solution and the helper modules beside it, as one file the sandbox can run.

The sandbox runs one file. When the graded file imports modules the student handed in beside it
(`from helpers import softmax`), their sources travel inside the graded file: one line after the
docstring and `from __future__` imports installs an importer that serves them by name, with their own
file names in tracebacks. Nothing else changes; the packed file is kept beside the report.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from grader.intake.bounds import parse_python

_IMPORTER = '''
import importlib.abc as _abc, importlib.util as _util, sys as _sys
class _Helpers(_abc.MetaPathFinder, _abc.Loader):
    def find_spec(self, name, path=None, target=None):
        return _util.spec_from_loader(name, self, origin=name + ".py") if name in SOURCES else None
    def create_module(self, spec):
        return None
    def exec_module(self, module):
        module.__file__ = module.__name__ + ".py"
        exec(compile(SOURCES[module.__name__], module.__file__, "exec"), module.__dict__)
_sys.meta_path.insert(0, _Helpers())
'''
_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def decode(data: bytes) -> str:
    """Source bytes as Python would read them (its coding line, else UTF-8); undecodable bytes replaced."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        return data.decode(encoding, "replace")
    except LookupError:
        return data.decode("utf-8", "replace")


def imported_names(source: str) -> set[str]:
    try:
        tree = parse_python(source)
    except SyntaxError:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level <= 1 and node.module:
            names.add(node.module.split(".")[0])
    return names


def needed_helpers(solution: str, helpers: dict[str, str]) -> list[str]:
    """Helper modules the solution imports, directly or through another helper."""
    todo, seen = list(imported_names(solution) & helpers.keys()), set()
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo += list(imported_names(helpers[name]) & helpers.keys())
    return sorted(seen)


def _insert_at(source: str) -> int:
    """The line index after the module docstring and `from __future__` imports (0 if none or unparsable)."""
    try:
        body = parse_python(source).body
    except SyntaxError:
        return 0
    end = 0
    for i, node in enumerate(body):
        docstring = i == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if docstring or (isinstance(node, ast.ImportFrom) and node.module == "__future__"):
            end = node.end_lineno
        else:
            break
    return end


def pack(solution: str, helpers: dict[str, str]) -> str:
    lines = solution.splitlines()
    for i in range(min(2, len(lines))):
        if _COOKIE.match(lines[i].encode()):
            lines[i] = "# -*- coding: utf-8 -*-"  # the packed file is written as UTF-8
    at = _insert_at("\n".join(lines))
    line = (f"exec({_IMPORTER!r}, {{'SOURCES': {dict(sorted(helpers.items()))!r}}})"
            "  # the student's helper modules, importable by name (added by the grader)")
    return "\n".join(lines[:at] + [line] + lines[at:]) + "\n"
