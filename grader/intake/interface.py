"""What a file's syntax tree says about its interface, for a person to look at: read, never run.

Two ways a file whose math may well be right scores nothing: the function is there under another name
(`attention(q, k, v)` for `causal_attention`), or the file runs a test runner when it is imported
(`unittest.main()` at the bottom, outside `if __name__ == "__main__":`), which ends the import. Neither
is graded differently here: the row is listed for review with what was found and where.
"""

from __future__ import annotations

import ast

# Calls that end (or take over) the process when a module is imported.
RUNNERS = {"unittest.main", "pytest.main", "doctest.testmod", "sys.exit", "exit", "quit", "os._exit"}


def _dotted(node: ast.expr) -> str:
    """`unittest.main` for the call's function; "" for anything but a dotted name (a loop: chains may be long)."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else ""


def _is_main_guard(node: ast.stmt) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators))


def _at_import(body: list[ast.stmt]):
    """Statements that run when the module is imported (not inside a def, a class body's defs or a main guard)."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or _is_main_guard(node):
            continue
        yield node
        for field in ("body", "orelse", "finalbody"):
            yield from _at_import(getattr(node, field, []) or [])
        for handler in getattr(node, "handlers", []) or []:
            yield from _at_import(handler.body)


def runner_calls(tree: ast.Module) -> list[tuple[str, int]]:
    found = []
    for stmt in _at_import(tree.body):
        if isinstance(stmt, ast.Expr | ast.Assign) and isinstance(stmt.value, ast.Call):
            name = _dotted(stmt.value.func)
            if name in RUNNERS:
                found.append((name, stmt.lineno))
    return found


def renamed(tree: ast.Module, entry: str) -> list[tuple[str, str, int]]:
    """Top-level functions that could be `entry` under another name: three parameters or more, or a name
    holding "attention". (name, signature, line)."""
    out = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name != entry:
            params = [a.arg for a in node.args.posonlyargs + node.args.args]
            if "attention" in node.name.casefold() or (len(params) >= 3 and not node.name.startswith("_")):
                out.append((node.name, f"{node.name}({', '.join(params)})", node.lineno))
    return out


def problems(source: str, entry: str, defines: bool, *, tree: ast.Module | None = None) -> list[str]:
    """Each interface problem found, in words naming the line; empty when the file does not parse (a tree
    too deep for the parser is no interface to read). `tree`: the source's syntax tree, if already parsed."""
    if tree is None:
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return []
    out = []
    if not defines:
        near = renamed(tree, entry)
        if near:
            listed = ", ".join(f"{sig} (line {line})" for _, sig, line in near)
            out.append(f"defines no {entry}, but defines {listed}: renamed? Graded as handed in (its checks "
                       f"need {entry}); read it before changing the grade")
    for name, line in runner_calls(tree):
        out.append(f"calls {name}() when imported (line {line}), outside `if __name__ == \"__main__\":`; the "
                   "grader imports the file, so that call runs there and ends the import")
    return out
