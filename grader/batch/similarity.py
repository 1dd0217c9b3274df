"""Pairs of submissions whose normalised source is the same or nearly: for the instructor to look at.

Normalised: the syntax tree (`ast`), so comments, layout and redundant parentheses are gone, docstrings
left out, and every name renamed by order of first appearance: renaming variables, reformatting or
rewording comments changes nothing. Attribute names (`.softmax`), operators and constants stay. Nearness is the
Jaccard similarity of token 5-grams; 5-grams shared by more than a quarter of the class (the template,
the obvious idioms) are left out, so a short correct solution is not "similar" to every other one.
No penalty follows from this, and none should without a person reading both files.
"""

from __future__ import annotations

import ast
import builtins
from collections import Counter, defaultdict
from itertools import combinations

from grader.report.models import SimilarPair

_BUILTINS = frozenset(dir(builtins))
K = 5  # tokens per shingle
NEAR = 0.85  # Jaccard similarity from which a pair is listed
COMMON = 0.25  # shingles in more than this share of a class (of at least 8) say nothing


def normalise(source: str | bytes) -> tuple[str, ...] | None:
    """The submission as a token sequence with names, comments and layout stripped; None if it does not parse.

    A pre-order walk of the syntax tree: node kinds, operators, attribute names and constants, with
    every other name renamed by order of first appearance. Docstrings are left out.
    """
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    names: dict[str, str] = {}
    out: list[str] = []

    def rename(name: str) -> str:
        return name if name in _BUILTINS else names.setdefault(name, f"n{len(names)}")

    def visit(node: ast.AST) -> None:
        out.append(type(node).__name__)
        if isinstance(node, ast.Name):
            out.append(rename(node.id))
        elif isinstance(node, ast.arg):
            out.append(rename(node.arg))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(rename(node.name))
        elif isinstance(node, ast.Attribute):
            out.append("." + node.attr)
        elif isinstance(node, ast.alias):
            out.append(node.name)
            if node.asname:
                out.append(rename(node.asname))
        elif isinstance(node, ast.Constant):
            out.append(repr(node.value))
        body = getattr(node, "body", None)
        docstring = (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                     and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str))
        for child in ast.iter_child_nodes(node):
            if docstring and child is body[0]:
                continue
            if isinstance(child, (ast.expr_context,)):
                continue
            visit(child)
        out.append("/")

    try:
        visit(tree)
    except RecursionError:
        return None
    return tuple(out)


def _shingles(tokens: tuple[str, ...]) -> set[tuple[str, ...]]:
    return {tokens[i:i + K] for i in range(max(1, len(tokens) - K + 1))}


def similar_pairs(sources: dict[str, str | bytes], *, near: float = NEAR) -> list[SimilarPair]:
    """Groups of identical normalised sources, then near pairs of groups; most similar first."""
    by_source: dict[str | bytes, list[str]] = defaultdict(list)
    for key, src in sources.items():
        by_source[src].append(key)  # byte-identical files are normalised once
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for src, keys in by_source.items():
        tokens = normalise(src)
        if tokens:
            groups[tokens] += keys
    members = {min(keys): sorted(keys) for keys in groups.values()}
    found = [SimilarPair(students=keys, similarity=1.0, identical=True) for keys in members.values() if len(keys) > 1]
    # Near pairs of groups, found through shared 5-grams only (an inverted index, not every pair).
    shingles = {min(keys): _shingles(tokens) for tokens, keys in groups.items()}
    counts = Counter(s for grams in shingles.values() for s in grams)
    limit = max(2, int(COMMON * len(shingles))) if len(shingles) >= 8 else len(shingles)
    rare = {key: {s for s in grams if counts[s] <= limit} for key, grams in shingles.items()}
    index: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for key, grams in rare.items():
        for s in grams:
            index[s].append(key)
    shared: Counter = Counter()
    for keys in index.values():
        for a, b in combinations(sorted(keys), 2):
            shared[(a, b)] += 1
    for (a, b), both in shared.items():
        union = len(rare[a] | rare[b])
        similarity = both / union if union else 0.0
        if near <= similarity < 1.0:
            found.append(SimilarPair(students=sorted(members[a] + members[b]), similarity=round(similarity, 3),
                                     identical=False))
    return sorted(found, key=lambda p: (-p.similarity, p.students))
