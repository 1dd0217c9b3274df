"""Pairs of submissions whose normalised source is the same or nearly: for the instructor to look at.

Normalised: docstrings, comments and layout gone (parsed with `ast`, written back with `ast.unparse`),
then every name renamed by order of first appearance (`tokenize`), so renaming variables, reformatting
or rewording comments changes nothing. Attribute names (`.softmax`) and keywords stay. Nearness is the
Jaccard similarity of token 5-grams; 5-grams shared by more than a quarter of the class (the template,
the obvious idioms) are left out, so a short correct solution is not "similar" to every other one.
No penalty follows from this, and none should without a person reading both files.
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import tokenize
from collections import Counter, defaultdict
from itertools import combinations

from grader.report.models import SimilarPair

K = 5  # tokens per shingle
NEAR = 0.85  # Jaccard similarity from which a pair is listed
COMMON = 0.25  # shingles in more than this share of a class (of at least 8) say nothing


def normalise(source: str | bytes) -> tuple[str, ...] | None:
    """The submission as a token sequence with names, comments and layout stripped; None if it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    names: dict[str, str] = {}
    tokens: list[str] = []
    previous = ""
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING, tokenize.ENDMARKER)
    for tok in tokenize.generate_tokens(io.StringIO(ast.unparse(tree)).readline):
        if tok.type in skip:
            continue
        text = tok.string
        if tok.type == tokenize.NAME and not keyword.iskeyword(text) and previous != "." and not hasattr(builtins, text):
            text = names.setdefault(text, f"n{len(names)}")
        tokens.append(text)
        previous = tok.string
    return tuple(tokens)


def _shingles(tokens: tuple[str, ...]) -> set[tuple[str, ...]]:
    return {tokens[i:i + K] for i in range(max(1, len(tokens) - K + 1))}


def similar_pairs(sources: dict[str, str | bytes], *, near: float = NEAR) -> list[SimilarPair]:
    """Pairs of keys (each pair once, a < b), most similar first."""
    normal = {key: tokens for key, src in sources.items() if (tokens := normalise(src))}
    pairs: dict[tuple[str, str], SimilarPair] = {}
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for key, tokens in normal.items():
        groups[tokens].append(key)
    for keys in groups.values():
        for a, b in combinations(sorted(keys), 2):
            pairs[(a, b)] = SimilarPair(a=a, b=b, similarity=1.0, identical=True)
    # Near pairs, found through shared shingles only (an inverted index, not every pair of the class).
    representative = {keys[0]: _shingles(tokens) for tokens, keys in groups.items()}
    counts = Counter(s for shingles in representative.values() for s in shingles)
    limit = max(2, int(COMMON * len(normal))) if len(normal) >= 8 else len(normal)
    index: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for key, shingles in representative.items():
        for s in shingles:
            if counts[s] <= limit:
                index[s].append(key)
    shared: Counter = Counter()
    for keys in index.values():
        for a, b in combinations(sorted(keys), 2):
            shared[(a, b)] += 1
    rare = {key: {s for s in shingles if counts[s] <= limit} for key, shingles in representative.items()}
    for (a, b), both in shared.items():
        union = len(rare[a] | rare[b])
        similarity = both / union if union else 0.0
        if similarity >= near:
            for x in groups[normal[a]]:
                for y in groups[normal[b]]:
                    key = (min(x, y), max(x, y))
                    pairs.setdefault(key, SimilarPair(a=key[0], b=key[1], similarity=round(similarity, 3),
                                                      identical=False))
    return sorted(pairs.values(), key=lambda p: (-p.similarity, p.a, p.b))
