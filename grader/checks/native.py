"""Native code in a submission: where the sandbox's refusals could be undone from inside, no check credits the file.

ctypes, cffi and loading a native library are refused in the child (`grader.sandbox.native`), but
ctypes' data types stay reachable as objects and can read and write the process's memory without
any call the child could refuse: such code could undo the tripwires and return torch's own
attention. So reaching for native code is judged from two sides: the source (read by parsing, so a
comment does not count; names split into constant pieces are put back together), and the run (a
refusal the child recorded, `native code: ...` in a reply's `fused`). Either one: `forbidden_api`
fails and names it, and no other check pays, as for answers written out for the public probes.
"""

from __future__ import annotations

import ast

from grader.sandbox import NATIVE_MODULES as MODULES

# Names that lead to native code from Python: the modules, their doors, and the walk that finds their types.
NAMES = frozenset((*MODULES, "CDLL", "PyDLL", "cdll", "pydll", "pythonapi", "CFUNCTYPE", "PYFUNCTYPE", "dlopen",
                   "load_library", "__subclasses__", "ExtensionFileLoader", "create_dynamic", "memfd_create"))
RUNTIME_MARK = "native code: "


def _text(node: ast.AST) -> str | None:
    """A string built from constants only ("ct" + "ypes", "".join([...]), "sepytc"[::-1]), else None."""
    match node:
        case ast.Constant(value=str(s)):
            return s
        case ast.BinOp(left=a, op=ast.Add(), right=b):
            left, right = _text(a), _text(b)
            return None if left is None or right is None else left + right
        case ast.JoinedStr(values=parts):
            texts = [_text(p.value) if isinstance(p, ast.FormattedValue) else _text(p) for p in parts]
            return None if None in texts else "".join(texts)
        case ast.Call(func=ast.Attribute(value=sep, attr="join"), args=[ast.List(elts=e) | ast.Tuple(elts=e)]):
            joiner, texts = _text(sep), [_text(x) for x in e]
            return None if joiner is None or None in texts else joiner.join(texts)
        case ast.Subscript(value=inner, slice=ast.Slice(lower=None, upper=None, step=ast.UnaryOp(
                op=ast.USub(), operand=ast.Constant(value=1)))):
            s = _text(inner)
            return None if s is None else s[::-1]
    return None


def static_native(source: str) -> list[str]:
    """The native-code names the source uses: imported, named, or spelt in a string (its docstrings aside)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    docstrings = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)}
    found: set[str] = set()
    for node in ast.walk(tree):
        words: list[str] = []
        match node:
            case ast.Import(names=aliases):
                words = [a.name.partition(".")[0] for a in aliases]
            case ast.ImportFrom(module=module, names=aliases):
                words = [(module or "").partition(".")[0], *(a.name for a in aliases)]
            case ast.Name(id=name) | ast.Attribute(attr=name):
                words = [name]
            case ast.Constant(value=str()) | ast.BinOp() | ast.JoinedStr() | ast.Call() | ast.Subscript() \
                    if id(getattr(node, "value", None)) not in docstrings and id(node) not in docstrings:
                text = _text(node)
                words = [w for w in NAMES if text is not None and w in text]
        found.update(w for w in words if w in NAMES)
    return sorted(found)


def runtime_native(fused: list[str]) -> list[str]:
    """What the child refused as native code, from one reply's `fused`."""
    return [f.removeprefix(RUNTIME_MARK) for f in fused if f.startswith(RUNTIME_MARK)]


def native_code(obs) -> str | None:
    """Why no check credits this file (native code, in its source or its run), or None."""
    if "native_code" not in obs._memo:
        static = static_native(obs.source) if any(n in obs.source for n in NAMES) else []
        ran = sorted({w for r in obs.replies.values() for w in runtime_native(r.fused)})
        reason = None
        if static or ran:
            what = ", ".join([*(f"{w} in the source" for w in static), *(f"{w} at run time" for w in ran)][:6])
            reason = (f"the submission reaches for native code or for what leads to it ({what}); native code can undo the sandbox's refusals from "
                      "inside, so none of its results can be credited as attention written by hand")
        obs._memo["native_code"] = reason
    return obs._memo["native_code"]
