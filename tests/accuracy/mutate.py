"""AST-level mutation generator for the accuracy corpus: deterministic mutants of base.py.

Each operator declares up front whether its mutants are equivalent (must score full marks with no
diagnosis) and which catalogued misconception it expects the grader to name first (None where the
catalogue has no entry for it). Every variant is a small edit of the parsed base solution, written
back with ast.unparse, so the same base and operators always give the same sources.

    python tests/accuracy/mutate.py --list          # name, equivalent, expected id
    python tests/accuracy/mutate.py --write DIR     # one file per mutant
"""

from __future__ import annotations

import argparse
import ast
import copy
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

BASE = Path(__file__).with_name("base.py")
LOCK = Path(__file__).with_name("mutants.lock")

Edit = Callable[[ast.Module], None]


@dataclass(frozen=True)
class Operator:
    name: str
    equivalent: bool
    expected: str | None  # catalogue id the grader should name first; None: nothing catalogued
    what: str
    variants: Callable[[], Iterator[tuple[str, Edit]]]


@dataclass(frozen=True)
class Mutant:
    name: str
    operator: str
    equivalent: bool
    expected: str | None
    what: str
    source: str

    @property
    def filename(self) -> str:
        return f"{self.name}.py"


OPERATORS: list[Operator] = []


def operator(name: str, *, equivalent: bool, expected: str | None, what: str):
    def register(variants: Callable[[], Iterator[tuple[str, Edit]]]):
        OPERATORS.append(Operator(name, equivalent, expected, what, variants))
        return variants
    return register


# --- finding things in the base --------------------------------------------------------------------

def _fn(tree: ast.Module, name: str = "causal_attention") -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


def _expr(src: str) -> ast.expr:
    return ast.parse(src, mode="eval").body


def _stmts(src: str) -> list[ast.stmt]:
    return ast.parse(src).body


def _index(fn: ast.FunctionDef, target: str, nth: int = 0) -> int:
    """Index in fn.body of the nth assignment to `target`."""
    def names(node: ast.expr) -> list[str]:
        return [node.id] if isinstance(node, ast.Name) else [n for e in getattr(node, "elts", []) for n in names(e)]

    hits = [i for i, s in enumerate(fn.body)
            if isinstance(s, ast.Assign) and any(target in names(t) for t in s.targets)]
    return hits[nth]


def _assign(fn: ast.FunctionDef, target: str, nth: int = 0) -> ast.Assign:
    return fn.body[_index(fn, target, nth)]


def _set_value(tree: ast.Module, target: str, src: str, nth: int = 0) -> None:
    _assign(_fn(tree), target, nth).value = _expr(src)


def _replace(tree: ast.Module, target: str, src: str, nth: int = 0, count: int = 1) -> None:
    """Replace `count` statements starting at the nth assignment to `target` by `src`."""
    fn = _fn(tree)
    i = _index(fn, target, nth)
    fn.body[i:i + count] = _stmts(src)


def _insert_after(tree: ast.Module, target: str, src: str, nth: int = 0) -> None:
    fn = _fn(tree)
    i = _index(fn, target, nth)
    fn.body[i + 1:i + 1] = _stmts(src)


def _calls(tree: ast.Module, attr: str) -> list[ast.Call]:
    return [n for n in ast.walk(_fn(tree)) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute) and n.func.attr == attr]


def _set_kw(call: ast.Call, key: str, src: str) -> None:
    next(kw for kw in call.keywords if kw.arg == key).value = _expr(src)


def _return(tree: ast.Module, src: str) -> None:
    fn = _fn(tree)
    fn.body[-1] = _stmts(f"return {src}")[0]


def _validate_body(tree: ast.Module) -> list[ast.stmt]:
    return _fn(tree, "_validate").body


def _import(tree: ast.Module, src: str) -> None:
    tree.body[1:1] = _stmts(src)  # after the module docstring


# --- non-equivalent operators --------------------------------------------------------------------

@operator("softmax_axis", equivalent=False, expected="softmax_wrong_axis",
          what="the softmax normalises along another axis than the source axis")
def _softmax_axis():
    def both(dim):
        def edit(t):
            _set_kw(_calls(t, "amax")[0], "dim", dim)
            _set_kw(_calls(t, "sum")[0], "dim", dim)
        return edit

    def only_sum(dim):
        return lambda t: _set_kw(_calls(t, "sum")[0], "dim", dim)

    for dim in ("-2", "0", "1", "2"):
        yield f"both_dim{dim}", both(dim)
    for dim in ("-2", "0", "1"):
        yield f"sum_dim{dim}", only_sum(dim)


@operator("max_axis", equivalent=False, expected=None,
          what="the maximum subtracted before exp is taken along another axis (a non-constant shift per row)")
def _max_axis():
    for dim in ("-2", "0", "1"):
        yield f"dim{dim}", lambda t, d=dim: _set_kw(_calls(t, "amax")[0], "dim", d)


@operator("key_transpose", equivalent=False, expected=None,
          what="the key is not transposed over its last two axes")
def _key_transpose():
    yield "none", lambda t: _set_value(t, "scores", "torch.matmul(q, k) * scale")
    yield "axes_0_1", lambda t: _set_value(t, "scores", "torch.matmul(q, k.transpose(0, 1)) * scale")
    yield "axes_-3_-1", lambda t: _set_value(t, "scores", "torch.matmul(q, k.transpose(-3, -1)) * scale")


@operator("weights_transposed", equivalent=False, expected=None,
          what="the output mixes values with the transposed weights (columns instead of rows)")
def _weights_transposed():
    yield "out", lambda t: _set_value(t, "out", "torch.matmul(weights.transpose(-1, -2), v)")


@operator("mask_diagonal", equivalent=False, expected="diagonal_excluded",
          what="the mask also forbids the diagonal (a position cannot see itself)")
def _mask_diagonal():
    yield "triu0", lambda t: _set_kw(_calls(t, "triu")[0], "diagonal", "0")
    yield "triu-1", lambda t: _set_kw(_calls(t, "triu")[0], "diagonal", "-1")


@operator("mask_offset", equivalent=False, expected="future_offset",
          what="the mask starts one or more places too late: a position also sees the next ones")
def _mask_offset():
    for d in ("2", "3"):
        yield f"triu{d}", lambda t, d=d: _set_kw(_calls(t, "triu")[0], "diagonal", d)


@operator("mask_direction", equivalent=False, expected="wrong_mask_direction",
          what="the mask keeps the upper triangle: positions see the future, not the past")
def _mask_direction():
    yield "tril-1", lambda t: _set_value(
        t, "future", "torch.tril(torch.ones(n, n, dtype=torch.bool, device=q.device), diagonal=-1)")
    yield "where_swapped", lambda t: _set_value(t, "scores", "torch.where(future, scores, float('-inf'))", nth=1)


@operator("mask_removed", equivalent=False, expected="no_mask", what="no causal mask at all")
def _mask_removed():
    def drop(t):
        fn = _fn(t)
        del fn.body[_index(fn, "scores", 1)]
    yield "statement", drop
    yield "empty_mask", lambda t: _set_value(
        t, "future", "torch.triu(torch.zeros(n, n, dtype=torch.bool, device=q.device), diagonal=1)")


@operator("fill_finite", equivalent=False, expected="zero_fill_mask",
          what="forbidden scores are set to a finite value, so they keep a share")
def _fill_finite():
    for label, value in (("zero", "0.0"), ("minus_one", "-1.0"), ("minus_100", "-100.0"),
                         ("minus_1e4", "-1e4"), ("plus_10", "10.0")):
        yield label, lambda t, v=value: _set_value(t, "scores", f"torch.where(future, {v}, scores)", nth=1)


@operator("fill_nonfinite", equivalent=False, expected=None,
          what="forbidden scores are set to +inf or NaN")
def _fill_nonfinite():
    for label, value in (("plus_inf", "float('inf')"), ("nan", "float('nan')")):
        yield label, lambda t, v=value: _set_value(t, "scores", f"torch.where(future, {v}, scores)", nth=1)


@operator("scale_wrong", equivalent=False, expected="wrong_scale",
          what="the scores are scaled by something else than 1/sqrt(d_k)")
def _scale_wrong():
    for label, src in (("d_k", "d_k ** -1"), ("sqrt_d_v", "v.shape[-1] ** -0.5"), ("sqrt_T", "n ** -0.5"),
                       ("constant", "0.125"), ("times_sqrt_d_k", "d_k ** 0.5"), ("fourth_root", "d_k ** -0.25"),
                       ("double", "2 * d_k ** -0.5")):
        yield label, lambda t, s=src: _set_value(t, "scale", s)


@operator("scale_missing", equivalent=False, expected="missing_scale",
          what="the scores are not scaled at all")
def _scale_missing():
    yield "one", lambda t: _set_value(t, "scale", "1.0")
    yield "dropped", lambda t: _set_value(t, "scores", "torch.matmul(q, k.transpose(-1, -2))")


@operator("hardcoded_shape", equivalent=False, expected="hardcoded_shape",
          what="the worked example's sizes are written in (T = 3, d_k = 2)")
def _hardcoded():
    yield "T3", lambda t: _replace(t, "n", "n, d_k = 3, q.shape[-1]")
    yield "dk2", lambda t: _replace(t, "n", "n, d_k = q.shape[-2], 2")
    yield "both", lambda t: _replace(t, "n", "n, d_k = 3, 2")


@operator("softmax_unstable", equivalent=False, expected="unstable_softmax",
          what="exp of the raw scores: the row maximum is not subtracted")
def _softmax_unstable():
    yield "no_max", lambda t: _set_value(t, "e", "torch.exp(scores)")
    yield "first_column", lambda t: _set_value(t, "top", "scores[..., :1]")


@operator("softmax_normaliser", equivalent=False, expected=None,
          what="the softmax is replaced by another normalisation (sigmoid, no or wrong normaliser)")
def _softmax_normaliser():
    yield "sigmoid", lambda t: _set_value(t, "weights", "torch.sigmoid(scores)")
    yield "unnormalised", lambda t: _set_value(t, "weights", "e")
    yield "global_sum", lambda t: _set_value(t, "weights", "e / e.sum()")
    yield "sum_no_keepdim", lambda t: _set_value(t, "weights", "e / e.sum(dim=-1)")


@operator("softmax_hard", equivalent=False, expected="hard_attention",
          what="one-hot weights on the best source instead of a softmax")
def _softmax_hard():
    yield "one_hot", lambda t: _set_value(
        t, "weights", "torch.nn.functional.one_hot(scores.argmax(dim=-1), n).to(scores.dtype)")
    yield "equals_max", lambda t: _set_value(t, "weights", "(scores == top).to(scores.dtype)")


@operator("softmax_base", equivalent=False, expected="wrong_scale",
          what="exp is replaced by another base (2 or 10), which rescales the scores")
def _softmax_base():
    yield "exp2", lambda t: _set_value(t, "e", "torch.exp2(scores - top)")
    yield "pow10", lambda t: _set_value(t, "e", "torch.pow(10.0, scores - top)")


@operator("detach", equivalent=False, expected="detached_graph",
          what="part of the graph is detached, so no gradient reaches q and k")
def _detach():
    yield "weights", lambda t: _set_value(t, "weights", "(e / e.sum(dim=-1, keepdim=True)).detach()")
    yield "scores", lambda t: _set_value(t, "scores", "torch.matmul(q, k.transpose(-1, -2)).detach() * scale")
    yield "weights_in_output", lambda t: _set_value(t, "out", "torch.matmul(weights.detach(), v)")
    yield "data", lambda t: _set_value(t, "e", "torch.exp(scores - top).data")


@operator("inplace_input", equivalent=False, expected="inputs_mutated",
          what="the caller's q or k is changed in place")
def _inplace_input():
    def scale_q_inplace(stmt):
        def edit(t):
            _set_value(t, "scores", "torch.matmul(q, k.transpose(-1, -2))")
            _insert_after(t, "scale", stmt)
        return edit
    yield "q_mul_", scale_q_inplace("q.mul_(scale)")
    yield "q_imul", scale_q_inplace("q *= scale")
    yield "k_mul_", scale_q_inplace("k.mul_(scale)")


@operator("dtype_cast", equivalent=False, expected="dtype_downcast",
          what="part of the computation runs in float32 (or the result comes back as float32)")
def _dtype_cast():
    yield "inputs_float", lambda t: _insert_after(t, "n", "q, k, v = q.float(), k.float(), v.float()")
    yield "softmax_float", lambda t: _set_value(
        t, "weights", "(e.float() / e.float().sum(dim=-1, keepdim=True)).to(v.dtype)")
    yield "scores_float", lambda t: _set_value(
        t, "scores", "torch.matmul(q.float(), k.float().transpose(-1, -2)).to(q.dtype) * scale")
    yield "output_float", lambda t: _set_value(t, "out", "torch.matmul(weights, v).float()")


@operator("return_swapped", equivalent=False, expected="swapped_return", what="returns (weights, out)")
def _return_swapped():
    yield "pair", lambda t: _return(t, "(weights, out)")


@operator("return_type", equivalent=False, expected="wrong_return_type",
          what="returns something else than the pair (out, weights)")
def _return_type():
    yield "out_only", lambda t: _return(t, "out")
    yield "list", lambda t: _return(t, "[out, weights]")
    yield "triple", lambda t: _return(t, "(out, weights, scores)")


@operator("return_extra_dim", equivalent=False, expected=None,
          what="returns the pair with an extra leading dimension")
def _return_extra_dim():
    yield "unsqueeze0", lambda t: _return(t, "(out.unsqueeze(0), weights.unsqueeze(0))")


@operator("validation_gap", equivalent=False, expected="no_shape_validation",
          what="a shape check is missing or raises another exception than ValueError")
def _validation_gap():
    def drop_check(i):
        def edit(t):
            del _validate_body(t)[i]
        return edit

    for i, label in enumerate(("rank", "batch", "length", "width")):
        yield f"no_{label}_check", drop_check(i)

    def no_call(t):
        fn = _fn(t)
        del fn.body[0]
    yield "no_validate_call", no_call

    def runtime_error(t):
        _validate_body(t)[1].body[0].exc.func.id = "RuntimeError"
    yield "batch_runtime_error", runtime_error

    def v_batch_unchecked(t):
        _validate_body(t)[1].test = _expr("q.shape[:-2] != k.shape[:-2]")
    yield "v_batch_unchecked", v_batch_unchecked


@operator("batch_flatten", equivalent=False, expected="batch_mixing",
          what="batch and time are flattened into one long sequence, so items attend to each other")
def _batch_flatten():
    def edit(t):
        _replace(t, "n", """
lead, T = q.shape[:-2], q.shape[-2]
q, k, v = q.reshape(-1, q.shape[-1]), k.reshape(-1, k.shape[-1]), v.reshape(-1, v.shape[-1])
n, d_k = q.shape[-2], q.shape[-1]
""")
        fn = _fn(t)
        fn.body[-1:] = _stmts("""
blocks = torch.arange(n, device=q.device).reshape(-1, T)
weights = weights[blocks[:, :, None], blocks[:, None, :]].reshape(*lead, T, T)
return out.reshape(*lead, T, v.shape[-1]), weights
""")
    yield "time_major", edit


@operator("mask_after_softmax", equivalent=False, expected="mask_after_softmax",
          what="the softmax runs on unmasked scores, then future weights are zeroed")
def _mask_after_softmax():
    def edit(t):
        fn = _fn(t)
        del fn.body[_index(fn, "scores", 1)]
        _insert_after(t, "weights", "weights = torch.where(future, 0.0, weights)")
    yield "zeroed", edit


# --- equivalent rewrites -------------------------------------------------------------------------

@operator("eq_scale_form", equivalent=True, expected=None, what="the same scale written another way")
def _eq_scale_form():
    def with_math(src):
        def edit(t):
            _import(t, "import math")
            _set_value(t, "scale", src)
        return edit
    yield "one_over_sqrt", with_math("1 / math.sqrt(d_k)")
    yield "sqrt_pow", with_math("math.sqrt(d_k) ** -1")
    yield "one_over_pow", lambda t: _set_value(t, "scale", "1.0 / d_k ** 0.5")


@operator("eq_scale_site", equivalent=True, expected=None, what="the scale applied to q, to k, or after the mask")
def _eq_scale_site():
    yield "on_q", lambda t: _set_value(t, "scores", "torch.matmul(q * scale, k.transpose(-1, -2))")
    yield "on_k", lambda t: _set_value(t, "scores", "torch.matmul(q, (k * scale).transpose(-1, -2))")

    def after_mask(t):
        _set_value(t, "scores", "torch.matmul(q, k.transpose(-1, -2))")
        _insert_after(t, "scores", "scores = scores * scale", nth=1)
    yield "after_mask", after_mask


@operator("eq_scores_form", equivalent=True, expected=None, what="q k^T written as einsum, @ or a broadcast sum")
def _eq_scores_form():
    for label, src in (("einsum", "torch.einsum('...id,...jd->...ij', q, k) * scale"),
                       ("at_mT", "(q @ k.mT) * scale"),
                       ("transpose_-2_-1", "torch.matmul(q, k.transpose(-2, -1)) * scale"),
                       ("broadcast_sum", "(q.unsqueeze(-2) * k.unsqueeze(-3)).sum(dim=-1) * scale")):
        yield label, lambda t, s=src: _set_value(t, "scores", s)


@operator("eq_mask_form", equivalent=True, expected=None,
          what="the same causal mask built or applied another way")
def _eq_mask_form():
    yield "masked_fill", lambda t: _set_value(t, "scores", "scores.masked_fill(future, float('-inf'))", nth=1)
    yield "additive", lambda t: _set_value(
        t, "scores", "scores + torch.zeros(n, n, dtype=scores.dtype, device=q.device).masked_fill(future, float('-inf'))",
        nth=1)

    def inplace(t):
        fn = _fn(t)
        fn.body[_index(fn, "scores", 1)] = _stmts("scores.masked_fill_(future, float('-inf'))")[0]
    yield "masked_fill_inplace", inplace

    def tril_allowed(t):
        _set_value(t, "future", "torch.tril(torch.ones(n, n, dtype=torch.bool, device=q.device))")
        _set_value(t, "scores", "torch.where(future, scores, float('-inf'))", nth=1)
    yield "tril_allowed", tril_allowed
    yield "arange_compare", lambda t: _set_value(
        t, "future", "torch.arange(n, device=q.device)[None, :] > torch.arange(n, device=q.device)[:, None]")


@operator("eq_fill", equivalent=True, expected=None,
          what="negative infinity spelled another way, or a finite fill far below any score")
def _eq_fill():
    def with_math(src):
        def edit(t):
            _import(t, "import math")
            _set_value(t, "scores", f"torch.where(future, {src}, scores)", nth=1)
        return edit
    yield "finfo_min", lambda t: _set_value(t, "scores", "torch.where(future, torch.finfo(scores.dtype).min, scores)",
                                            nth=1)
    yield "minus_1e9", lambda t: _set_value(t, "scores", "torch.where(future, -1e9, scores)", nth=1)
    yield "math_inf", with_math("-math.inf")
    yield "torch_inf", lambda t: _set_value(t, "scores", "torch.where(future, -torch.inf, scores)", nth=1)


@operator("eq_softmax_builtin", equivalent=True, expected=None,
          what="the written-out softmax replaced by PyTorch's, or by exp(s - logsumexp)")
def _eq_softmax_builtin():
    def three_lines(src):
        return lambda t: _replace(t, "top", src, count=3)
    yield "torch_softmax", three_lines("weights = torch.softmax(scores, dim=-1)")
    yield "method", three_lines("weights = scores.softmax(-1)")

    def functional(t):
        _import(t, "import torch.nn.functional as F")
        _replace(t, "top", "weights = F.softmax(scores, dim=-1)", count=3)
    yield "functional", functional
    yield "logsumexp", three_lines("weights = torch.exp(scores - torch.logsumexp(scores, dim=-1, keepdim=True))")


@operator("eq_max_form", equivalent=True, expected=None,
          what="the row maximum detached or taken with max(...).values")
def _eq_max_form():
    yield "detached", lambda t: _set_value(t, "top", "scores.amax(dim=-1, keepdim=True).detach()")
    yield "max_values", lambda t: _set_value(t, "top", "scores.max(dim=-1, keepdim=True).values")


@operator("eq_float64", equivalent=True, expected=None,
          what="the whole computation in float64, cast back to the inputs' dtype")
def _eq_float64():
    def edit(t):
        _insert_after(t, "n", "dtype = q.dtype\nq, k, v = q.double(), k.double(), v.double()")
        _return(t, "(out.to(dtype), weights.to(dtype))")
    yield "double", edit


@operator("eq_output_form", equivalent=True, expected=None, what="weights @ v written another way")
def _eq_output_form():
    for label, src in (("einsum", "torch.einsum('...ij,...jd->...id', weights, v)"),
                       ("at", "weights @ v"),
                       ("broadcast_sum", "(weights.unsqueeze(-1) * v.unsqueeze(-3)).sum(dim=-2)")):
        yield label, lambda t, s=src: _set_value(t, "out", s)


@operator("eq_loop_receivers", equivalent=True, expected=None,
          what="one receiving position at a time, over its allowed prefix")
def _eq_loop_receivers():
    def edit(t):
        fn = _fn(t)
        start = _index(fn, "scale")
        fn.body[start:] = _stmts("""
scale = d_k ** -0.5
rows, outs = [], []
for i in range(n):
    s = torch.matmul(q[..., i:i + 1, :], k[..., :i + 1, :].transpose(-1, -2)) * scale
    w = torch.softmax(s, dim=-1)
    outs.append(torch.matmul(w, v[..., :i + 1, :]))
    rows.append(torch.nn.functional.pad(w, (0, n - i - 1)))
return torch.cat(outs, dim=-2), torch.cat(rows, dim=-2)
""")
    yield "prefix", edit


@operator("eq_validation_style", equivalent=True, expected=None,
          what="the same shape checks written as one combined test with its own message")
def _eq_validation_style():
    def edit(t):
        _fn(t, "_validate").body = _stmts("""
shapes = (tuple(q.shape), tuple(k.shape), tuple(v.shape))
ok = min(len(s) for s in shapes) >= 2
ok = ok and shapes[0][:-1] == shapes[1][:-1] == shapes[2][:-1] and shapes[0][-1] == shapes[1][-1]
if not ok:
    raise ValueError(f'incompatible shapes: q={shapes[0]}, k={shapes[1]}, v={shapes[2]}')
""")
    yield "combined", edit


@operator("eq_bmm_flatten", equivalent=True, expected=None,
          what="leading dimensions flattened into one batch axis for bmm, restored afterwards")
def _eq_bmm_flatten():
    def edit(t):
        _replace(t, "n", """
lead = q.shape[:-2]
n, d_k = q.shape[-2], q.shape[-1]
q, k, v = q.reshape(-1, n, d_k), k.reshape(-1, n, d_k), v.reshape(-1, n, v.shape[-1])
""")
        _set_value(t, "scores", "torch.bmm(q, k.transpose(1, 2)) * scale")
        _set_value(t, "out", "torch.bmm(weights, v)")
        _return(t, "(out.reshape(*lead, n, v.shape[-1]), weights.reshape(*lead, n, n))")
    yield "bmm", edit


@operator("eq_inplace_local", equivalent=True, expected=None,
          what="in-place operations on the function's own tensors (never on q, k, v)")
def _eq_inplace_local():
    def scores_mul_(t):
        _set_value(t, "scores", "torch.matmul(q, k.transpose(-1, -2))")
        _insert_after(t, "scores", "scores.mul_(scale)")
    yield "scores_mul_", scores_mul_

    def cloned_q(t):
        _set_value(t, "scores", "torch.matmul(q, k.transpose(-1, -2))")
        _insert_after(t, "scale", "q = q.clone()\nq.mul_(scale)")
    yield "clone_then_mul_", cloned_q


# --- generation ----------------------------------------------------------------------------------

def _base_tree() -> ast.Module:
    return ast.parse(BASE.read_text())


def generate() -> list[Mutant]:
    """Every mutant, in a fixed order; a mutant whose source equals the base's is an error."""
    base = ast.unparse(_base_tree())
    mutants, seen = [], {base: "base"}
    for op in OPERATORS:
        for label, edit in op.variants():
            tree = copy.deepcopy(_base_tree())
            edit(tree)
            ast.fix_missing_locations(tree)
            body = ast.unparse(tree)
            name = f"{op.name}__{label}".replace("-", "m")
            if body in seen:
                raise ValueError(f"mutant {name} is identical to {seen[body]}")
            seen[body] = name
            compile(body, name, "exec")
            doc = f'"""Accuracy corpus mutant {name} (generated from tests/accuracy/base.py)."""\n'
            # unparse keeps the base's docstring first; replace it with the mutant's own line
            source = doc + body.split('"""', 2)[2].lstrip("\n")
            mutants.append(Mutant(name, op.name, op.equivalent, op.expected, op.what, source + "\n"))
    return mutants


def lock_lines(mutants: list[Mutant]) -> list[str]:
    """What mutants.lock freezes: name, equivalence, expected id and a hash of the source."""
    return [f"{m.name}\t{'equivalent' if m.equivalent else 'mutant'}\t{m.expected or '-'}\t"
            f"{hashlib.sha256(m.source.encode()).hexdigest()[:12]}" for m in mutants]


def write(directory: Path, mutants: list[Mutant] | None = None) -> list[tuple[Mutant, Path]]:
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for m in mutants if mutants is not None else generate():
        path = directory / m.filename
        path.write_text(m.source)
        out.append((m, path))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--list", action="store_true", help="print name, equivalence, expected id, source hash")
    parser.add_argument("--write", type=Path, metavar="DIR", help="write one file per mutant into DIR")
    parser.add_argument("--lock", action="store_true", help="rewrite mutants.lock from the generator")
    args = parser.parse_args()
    mutants = generate()
    if args.write:
        write(args.write, mutants)
    if args.lock:
        LOCK.write_text("\n".join(lock_lines(mutants)) + "\n")
    if args.list or not (args.write or args.lock):
        print("\n".join(lock_lines(mutants)))


if __name__ == "__main__":
    main()
