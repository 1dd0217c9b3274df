"""The reference, the correct variants and the mutant catalogue are what they claim to be.

The reference and every variant must match PyTorch's own causal attention; every mutant must be
provably wrong in exactly the way its docstring names. Mutants whose failure is the whole
submission (they do not load, exit, hang or exhaust memory) are never executed here: their
defect is shown from the source alone.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import io
import math
import os
import re
import tokenize
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
import torch
import torch.nn.functional as F
from torch import nn

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference" / "attention.py"
MUTANTS_DIR = ROOT / "reference" / "mutants"
VARIANTS_DIR = ROOT / "tests" / "variants"
TEMPLATE = ROOT / "student_template" / "attention.py"

# float64 agreement with SDPA, as in the chapter's Part 4 (measured 1.110e-16 there).
ATOL64 = 1e-12

EXPECTED_MUTANTS = {
    "not_implemented", "syntax_error", "import_error", "missing_function", "process_exit", "timeout",
    "memory_limit", "wrong_return_type", "swapped_return", "zero_fill_mask", "mask_after_softmax",
    "no_mask", "wrong_mask_direction", "diagonal_excluded", "future_offset", "softmax_wrong_axis",
    "missing_scale", "wrong_scale", "batch_mixing", "hardcoded_shape", "detached_graph",
    "inputs_mutated", "dtype_downcast", "unstable_softmax", "hard_attention", "forbidden_api",
    "no_shape_validation",
}
# Never imported in-process: they cannot load, or loading/calling them takes the process down.
NEVER_IMPORT = {"syntax_error", "import_error", "process_exit", "timeout", "memory_limit"}

VARIANTS = sorted(VARIANTS_DIR.glob("*.py"))


# ---------------------------------------------------------------- loading


def load(path: Path) -> ModuleType:
    """Import a submission-shaped file under a unique name, without touching sys.path."""
    name = f"catalogue_{path.parent.name}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mutant_path(mid: str) -> Path:
    return MUTANTS_DIR / f"{mid}.py"


def mutant(mid: str) -> ModuleType:
    assert mid not in NEVER_IMPORT
    return load(mutant_path(mid))


@pytest.fixture(scope="module")
def ref() -> ModuleType:
    return load(REFERENCE)


def read_docstring(path: Path) -> str:
    """The module docstring from the first token, so a file with a later syntax error still reads."""
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    for tok in tokens:
        if tok.type in (tokenize.ENCODING, tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            continue
        assert tok.type == tokenize.STRING, f"{path.name} does not start with a docstring"
        return ast.literal_eval(tok.string)
    raise AssertionError(f"{path.name} is empty")


DOC_RE = re.compile(
    r"\A(?P<title>[^\n]+\.)\n\n(?P<body>\S.*?)\n\n"
    r"Diagnosis: (?P<diagnosis>[a-z_]+)\nSection: (?P<section>[^\n]+)\nKind: (?P<kind>behaviour|submission)\n\Z",
    re.S,
)


def parse_catalogue_doc(path: Path) -> dict[str, str]:
    match = DOC_RE.match(read_docstring(path))
    assert match, f"{path.name}: docstring does not follow the catalogue format"
    return match.groupdict()


def chapter_path() -> Path | None:
    candidates = [os.environ.get("GRADER_CHAPTER", ""), ROOT / "grader" / "data" / "self-attention.md",
                  ROOT / "chapter" / "self-attention.md", ROOT.parent / "shared" / "chapter" / "self-attention.md"]
    return next((Path(c) for c in candidates if c and Path(c).is_file()), None)


def chapter_headings(text: str) -> set[str]:
    headings, fenced = set(), False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (m := re.match(r"#{1,6} (.+)", line)):
            headings.add(m.group(1).strip())
    return headings


# ---------------------------------------------------------------- probes


def worked_example(dtype=torch.float64) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The chapter's attention-level example: every query [1, 0], keys chosen so scores are [0, ln2, ln4]."""
    r2 = math.sqrt(2.0)
    q = torch.tensor([[1.0, 0.0]] * 3, dtype=dtype)
    k = torch.tensor([[0.0, 0.0], [r2 * math.log(2.0), 0.0], [r2 * math.log(4.0), 0.0]], dtype=dtype)
    v = torch.tensor([[2.0, 0.0], [0.0, 4.0], [6.0, 2.0]], dtype=dtype)
    return q, k, v


WORKED_WEIGHTS = [[1.0, 0.0, 0.0], [1 / 3, 2 / 3, 0.0], [1 / 7, 2 / 7, 4 / 7]]
WORKED_OUT = [[2.0, 0.0], [2 / 3, 8 / 3], [26 / 7, 16 / 7]]
ZERO_QUERY_OUT = [[2.0, 0.0], [1.0, 2.0], [8 / 3, 2.0]]


def t64(rows) -> torch.Tensor:
    return torch.tensor(rows, dtype=torch.float64)


def random_probe(batch=(2, 3), t=5, d_k=4, d_v=3, seed=0, dtype=torch.float64):
    """Distinct sizes for every named dimension, so a swapped axis cannot hide."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(*batch, t, d_k, generator=g, dtype=dtype)
    k = torch.randn(*batch, t, d_k, generator=g, dtype=dtype)
    v = torch.randn(*batch, t, d_v, generator=g, dtype=dtype)
    return q, k, v


def sdpa_weights(q, k) -> torch.Tensor:
    """SDPA applied to identity values returns the attention matrix itself."""
    eye = torch.eye(q.shape[-2], dtype=q.dtype).expand(*q.shape[:-1], q.shape[-2])
    return F.scaled_dot_product_attention(q, k, eye, is_causal=True, dropout_p=0.0)


def close(a: torch.Tensor, b: torch.Tensor, atol: float = ATOL64) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(a, b, atol=atol, rtol=0.0)


MISMATCHED = [
    pytest.param(((2, 3, 4), (1, 3, 4), (2, 3, 5)), id="broadcastable-batch"),
    pytest.param(((2, 3, 4), (3, 3, 4), (2, 3, 5)), id="batch-differs"),
    pytest.param(((3, 4), (5, 4), (5, 2)), id="T-differs"),
    pytest.param(((3, 4), (3, 4), (5, 2)), id="v-T-differs"),
    pytest.param(((2, 3, 4), (2, 3, 6), (2, 3, 4)), id="d_k-differs"),
    pytest.param(((3, 4), (3, 4), (2, 3, 4)), id="v-extra-batch"),
    pytest.param(((4,), (4,), (4,)), id="1-d"),
]


def assert_rejects(fn: Callable, shapes) -> None:
    tensors = [torch.zeros(s, dtype=torch.float64) for s in shapes]
    with pytest.raises(ValueError) as info:
        fn(*tensors)
    message = str(info.value)
    # The message must name the shapes, in tuple, list or torch.Size spelling.
    named = [str(tuple(s)) in message or str(list(s)) in message for s in shapes]
    assert any(named), f"ValueError message names no shape: {message!r}"


# ---------------------------------------------------------------- a correct submission


def check_worked_example(mod: ModuleType) -> None:
    q, k, v = worked_example()
    originals = [x.clone() for x in (q, k, v)]
    out, weights = mod.causal_attention(q, k, v)
    assert close(weights, t64(WORKED_WEIGHTS))
    assert close(out, t64(WORKED_OUT))
    assert all(torch.equal(a, b) for a, b in zip((q, k, v), originals, strict=True))
    zero_out, _ = mod.causal_attention(torch.zeros_like(q), k, v)
    assert close(zero_out, t64(ZERO_QUERY_OUT))
    # Value-only intervention: weights identical, last output's first coordinate up by exactly 1.
    v2 = v.clone()
    v2[0, 0] += 7.0
    out2, weights2 = mod.causal_attention(q, k, v2)
    assert torch.equal(weights2, weights)
    assert abs((out2[2, 0] - out[2, 0]).item() - 1.0) < ATOL64


def check_sdpa_parity(mod: ModuleType, batch=(2, 3)) -> None:
    q, k, v = random_probe(batch=batch)
    leaves = [x.clone().requires_grad_(True) for x in (q, k, v)]
    refs = [x.clone().requires_grad_(True) for x in (q, k, v)]
    out, weights = mod.causal_attention(*leaves)
    expected = F.scaled_dot_product_attention(*refs, is_causal=True, dropout_p=0.0)
    assert close(out, expected)
    assert close(weights, sdpa_weights(q, k))
    upstream = torch.randn(out.shape, generator=torch.Generator().manual_seed(1), dtype=out.dtype)
    (out * upstream).sum().backward()
    (expected * upstream).sum().backward()
    for mine, theirs in zip(leaves, refs, strict=True):
        assert mine.grad is not None and close(mine.grad, theirs.grad)


def check_properties(mod: ModuleType) -> None:
    """dtype preserved (half precision too), large scores stay finite, T = 1 works, the future never leaks."""
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        out, weights = mod.causal_attention(*random_probe(dtype=dtype))
        assert out.dtype == weights.dtype == dtype
        assert torch.isfinite(out).all() and torch.all(weights.triu(1) == 0)
    q, k, v = random_probe(seed=4)
    huge, _ = mod.causal_attention(q * 1e3, k, v)
    assert torch.isfinite(huge).all()
    assert close(huge, F.scaled_dot_product_attention(q * 1e3, k, v, is_causal=True))
    one = mod.causal_attention(*random_probe(batch=(), t=1))
    assert close(one[1], t64([[1.0]]))
    # Changing only the last position of one batch item leaves everything else unchanged.
    base, _ = mod.causal_attention(q, k, v)
    k2, v2 = k.clone(), v.clone()
    k2[1, 2, -1] += 5.0
    v2[1, 2, -1] -= 3.0
    moved, _ = mod.causal_attention(q, k2, v2)
    changed = (moved != base).any(dim=-1)
    assert changed[1, 2, -1] and changed.sum() == 1


def check_single_head(mod: ModuleType, ref: ModuleType) -> None:
    torch.manual_seed(0)
    head = mod.SingleHead(6, 2)
    for name in ("query", "key", "value"):
        layer = getattr(head, name)
        assert isinstance(layer, nn.Linear) and layer.bias is None
    assert sum(p.numel() for p in head.parameters()) == 36
    assert tuple(mod.SingleHead(6, 3, 5).value.weight.shape) == (5, 6)
    trusted = ref.SingleHead(6, 2).double()
    trusted.load_state_dict(head.state_dict())
    head = head.double()
    x = torch.randn(2, 4, 6, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    out, weights = head(x)
    expected_out, expected_weights = trusted(x)
    assert out.shape == (2, 4, 2) and weights.shape == (2, 4, 4)
    assert close(out, expected_out) and close(weights, expected_weights)
    out.square().sum().backward()
    expected_out.square().sum().backward()
    for name, p in head.named_parameters():
        theirs = dict(trusted.named_parameters())[name].grad
        assert p.grad is not None and torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0
        assert close(p.grad, theirs)


def check_all_correct(mod: ModuleType, ref: ModuleType) -> None:
    check_worked_example(mod)
    for batch in [(), (2,), (2, 3)]:
        check_sdpa_parity(mod, batch)
    check_properties(mod)
    check_single_head(mod, ref)


def test_reference_is_correct(ref):
    check_all_correct(ref, ref)


@pytest.mark.parametrize("shapes", MISMATCHED)
def test_reference_rejects_mismatched_shapes(ref, shapes):
    assert_rejects(ref.causal_attention, shapes)


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
def test_variant_is_correct(ref, path):
    check_all_correct(load(path), ref)


@pytest.mark.parametrize("path", VARIANTS, ids=lambda p: p.stem)
@pytest.mark.parametrize("shapes", MISMATCHED)
def test_variant_rejects_mismatched_shapes(path, shapes):
    assert_rejects(load(path).causal_attention, shapes)


def test_there_are_enough_independent_variants():
    assert len(VARIANTS) >= 7
    for path in VARIANTS:
        assert read_docstring(path).strip(), f"{path.name} must say what makes it different"


FORBIDDEN = ("scaled_dot_product_attention", "MultiheadAttention")


def test_variants_and_reference_use_no_forbidden_api():
    from grader.checks.contract import static_forbidden

    for path in [REFERENCE, *VARIANTS]:
        assert static_forbidden(path.read_text(), FORBIDDEN) == [], path.name



# ---------------------------------------------------------------- the catalogue's format


def test_catalogue_has_exactly_the_expected_ids():
    assert {p.stem for p in MUTANTS_DIR.glob("*.py")} == EXPECTED_MUTANTS


@pytest.mark.parametrize("mid", sorted(EXPECTED_MUTANTS))
def test_mutant_docstring_format(mid):
    doc = parse_catalogue_doc(mutant_path(mid))
    assert doc["diagnosis"] == mid
    expected_kind = "submission" if mid in NEVER_IMPORT | {"missing_function"} else "behaviour"
    assert doc["kind"] == expected_kind
    sentences = re.findall(r"[.!?](?:\s|$)", doc["body"])
    assert 2 <= len(sentences) <= 4, f"{mid}: body should be 2-4 sentences"
    path = chapter_path()
    if path is None:
        pytest.skip("chapter file not found; set GRADER_CHAPTER to check Section headings")
    assert doc["section"] in chapter_headings(path.read_text(encoding="utf-8"))


# ---------------------------------------------------------------- submission-level mutants, from source only


def function_def(tree: ast.Module, name: str) -> ast.FunctionDef:
    return next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)


def test_syntax_error_is_on_the_def_line():
    source = mutant_path("syntax_error").read_text()
    with pytest.raises(SyntaxError) as info:
        compile(source, "syntax_error.py", "exec")
    line = source.splitlines()[info.value.lineno - 1]
    assert line == "def causal_attention(q, k, v)"


def test_import_error_imports_a_missing_module():
    tree = ast.parse(mutant_path("import_error").read_text())
    modules = [n.module for n in tree.body if isinstance(n, ast.ImportFrom)]
    modules += [a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names]
    missing = [m for m in modules if importlib.util.find_spec(m.split(".")[0]) is None]
    assert missing == ["my_attention_helpers"]


def test_process_exit_exits_at_import():
    tree = ast.parse(mutant_path("process_exit").read_text())
    calls = [ast.unparse(n.value) for n in tree.body if isinstance(n, ast.Expr)]
    assert "sys.exit(0)" in calls


def test_timeout_loops_forever_in_causal_attention():
    fn = function_def(ast.parse(mutant_path("timeout").read_text()), "causal_attention")
    loops = [n for n in ast.walk(fn) if isinstance(n, ast.While)]
    assert any(ast.unparse(n.test) == "True" and isinstance(n.body[0], ast.Pass) and len(n.body) == 1
               and not any(isinstance(b, ast.Break | ast.Return) for b in ast.walk(n)) for n in loops)


def test_memory_limit_allocates_8_gib_in_causal_attention():
    fn = function_def(ast.parse(mutant_path("memory_limit").read_text()), "causal_attention")
    sizes = [math.prod(ast.literal_eval(a) for a in n.args) for n in ast.walk(fn)
             if isinstance(n, ast.Call) and ast.unparse(n.func) == "torch.ones"
             and all(isinstance(a, ast.Constant) for a in n.args) and n.args]
    # Default float32: 4 bytes per element; torch.ones writes every byte, so the pages are touched.
    assert max(sizes) * 4 >= 8 * 2**30


def test_missing_function_defines_only_the_misspelled_name():
    mod = mutant("missing_function")
    assert not hasattr(mod, "causal_attention") and hasattr(mod, "causal_atention")
    out, weights = mod.causal_atention(*worked_example())
    assert close(weights, t64(WORKED_WEIGHTS))


# ---------------------------------------------------------------- behaviour mutants: each bug, and only it


def worked(mid: str):
    return mutant(mid).causal_attention(*worked_example())


def prove_not_implemented(mod, ref):
    with pytest.raises(NotImplementedError):
        mod.causal_attention(*worked_example())
    with pytest.raises(NotImplementedError):
        mod.SingleHead(6, 2)
    # Below the catalogue docstring it is our own template, character for character.
    body = mutant_path("not_implemented").read_text().split('"""', 2)[2]
    assert TEMPLATE.read_text().split('"""', 2)[2].lstrip("\n") == body.lstrip("\n")


def prove_wrong_return_type(mod, ref):
    result = mod.causal_attention(*worked_example())
    assert isinstance(result, torch.Tensor) and close(result, t64(WORKED_OUT))


def prove_swapped_return(mod, ref):
    first, second = mod.causal_attention(*worked_example())
    assert close(first, t64(WORKED_WEIGHTS)) and close(second, t64(WORKED_OUT))


def prove_zero_fill_mask(mod, ref):
    _, weights = mod.causal_attention(*worked_example())
    assert close(weights[0], t64([1 / 3, 1 / 3, 1 / 3]))
    assert close(weights.sum(-1), torch.ones(3, dtype=torch.float64))  # normalisation alone misses it


def prove_mask_after_softmax(mod, ref):
    _, weights = mod.causal_attention(*worked_example())
    assert close(weights.sum(-1), t64([1 / 7, 3 / 7, 1.0]))
    assert close(weights.triu(1), torch.zeros(3, 3, dtype=torch.float64))


def prove_no_mask(mod, ref):
    q, k, v = worked_example()
    _, weights = mod.causal_attention(q, k, v)
    assert close(weights, torch.softmax(q @ k.T / math.sqrt(2), dim=-1))
    assert weights.triu(1).abs().sum() > 0


def prove_wrong_mask_direction(mod, ref):
    q, k, v = random_probe()
    _, weights = mod.causal_attention(q, k, v)
    assert torch.all(weights.tril(-1) == 0) and torch.all(weights.triu(1)[..., 0, 1:] > 0)
    assert close(weights[..., -1, :], torch.eye(5, dtype=torch.float64)[-1].expand(2, 3, 5))


def prove_diagonal_excluded(mod, ref):
    _, weights = mod.causal_attention(*worked_example())
    assert torch.isnan(weights[0]).all() and torch.isfinite(weights[1:]).all()
    assert torch.all(weights.diagonal()[1:] == 0)


def prove_future_offset(mod, ref):
    _, weights = mod.causal_attention(*random_probe())
    assert torch.all(weights.diagonal(offset=1, dim1=-2, dim2=-1) > 0)
    assert torch.all(weights.triu(2) == 0)


def prove_softmax_wrong_axis(mod, ref):
    _, weights = mod.causal_attention(*random_probe())
    assert close(weights.sum(-2), torch.ones(2, 3, 5, dtype=torch.float64))
    assert not close(weights.sum(-1), torch.ones(2, 3, 5, dtype=torch.float64))


def prove_missing_scale(mod, ref):
    q, k, v = random_probe()
    # Unscaled scores equal the reference's on queries multiplied by sqrt(d_k) = 2.
    assert all(map(close, mod.causal_attention(q, k, v), ref.causal_attention(q * 2.0, k, v)))
    assert not close(mod.causal_attention(q, k, v)[1], ref.causal_attention(q, k, v)[1])


def prove_wrong_scale(mod, ref):
    q, k, v = random_probe()
    # Dividing by d_k = 4 equals the reference on queries divided by sqrt(d_k) = 2.
    assert all(map(close, mod.causal_attention(q, k, v), ref.causal_attention(q / 2.0, k, v)))
    assert not close(mod.causal_attention(q, k, v)[1], ref.causal_attention(q, k, v)[1])


def prove_batch_mixing(mod, ref):
    q, k, v = random_probe(batch=(), seed=5)
    assert all(map(close, mod.causal_attention(q, k, v), ref.causal_attention(q, k, v)))
    q, k, v = random_probe(batch=(2,), seed=6)
    base, weights = mod.causal_attention(q, k, v)
    # Still causal inside an item: moving item 1's last position changes only that row.
    k2, v2 = k.clone(), v.clone()
    k2[1, -1] += 5.0
    v2[1, -1] -= 3.0
    moved, _ = mod.causal_attention(q, k2, v2)
    changed = (moved != base).any(-1)
    assert changed[1, -1] and changed.sum() == 1
    # But item 1 sees item 0: changing only item 0's values moves item 1's outputs.
    v3 = v.clone()
    v3[0] += 1.0
    leaked, _ = mod.causal_attention(q, k, v3)
    assert (leaked[1] != base[1]).any()
    assert close(base[0], ref.causal_attention(q, k, v)[0][0])
    assert (weights[1].sum(-1) < 1 - 1e-6).all()


def prove_hardcoded_shape(mod, ref):
    q, k, v = worked_example()
    assert all(map(close, mod.causal_attention(q, k, v), ref.causal_attention(q, k, v)))
    q, k, v = random_probe(batch=(2,), t=3, d_k=4)
    assert not close(mod.causal_attention(q, k, v)[1], ref.causal_attention(q, k, v)[1])
    with pytest.raises(RuntimeError):
        mod.causal_attention(*random_probe(batch=(2,), t=5, d_k=2))


def prove_detached_graph(mod, ref):
    q, k, v = (x.requires_grad_(True) for x in random_probe())
    out, weights = mod.causal_attention(q, k, v)
    assert all(map(close, (out, weights), ref.causal_attention(q, k, v)))
    out.sum().backward()
    assert q.grad is None and k.grad is None and v.grad is not None
    head = mod.SingleHead(6, 2)
    head(torch.randn(2, 4, 6))[0].square().sum().backward()
    assert head.query.weight.grad is None and head.key.weight.grad is None
    assert head.value.weight.grad is not None


def prove_inputs_mutated(mod, ref):
    q, k, v = random_probe()
    original = q.clone()
    out, weights = mod.causal_attention(q, k, v)
    assert all(map(close, (out, weights), ref.causal_attention(original, k, v)))
    assert close(q, original / 2.0)
    with pytest.raises(RuntimeError):
        mod.causal_attention(original.clone().requires_grad_(True), k, v)


def prove_dtype_downcast(mod, ref):
    q, k, v = random_probe()
    out, weights = mod.causal_attention(q, k, v)
    assert out.dtype == weights.dtype == torch.float32
    expected_out, expected_weights = ref.causal_attention(q, k, v)
    assert torch.allclose(out.double(), expected_out, atol=1e-5)
    assert torch.allclose(weights.double(), expected_weights, atol=1e-5)


def prove_unstable_softmax(mod, ref):
    q, k, v = worked_example()
    assert all(map(close, mod.causal_attention(q, k, v), ref.causal_attention(q, k, v)))
    q, k, v = random_probe(seed=4)
    out, _ = mod.causal_attention(q * 1e3, k, v)
    assert not torch.isfinite(out).all()
    assert torch.isfinite(ref.causal_attention(q * 1e3, k, v)[0]).all()


def prove_hard_attention(mod, ref):
    out, weights = mod.causal_attention(*worked_example())
    assert close(weights[2], t64([0.0, 0.0, 1.0])) and close(out[2], t64([6.0, 2.0]))
    _, weights = mod.causal_attention(*random_probe())
    assert torch.all((weights == 0) | (weights == 1)) and torch.all(weights.sum(-1) == 1)


def prove_forbidden_api(mod, ref, monkeypatch):
    calls = []
    real = F.scaled_dot_product_attention

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(F, "scaled_dot_product_attention", spy)
    q, k, v = random_probe()
    expected = ref.causal_attention(q, k, v)
    assert not calls
    assert all(map(close, mod.causal_attention(q, k, v), expected))
    assert calls and calls[0].get("is_causal") is True


def prove_no_shape_validation(mod, ref):
    q, k, v = random_probe()
    assert all(map(close, mod.causal_attention(q, k, v), ref.causal_attention(q, k, v)))
    # A (1, T, d) key and value broadcast silently against a (2, T, d) query.
    q2, k1, v1 = q[:, 0], k[:1, 0], v[:1, 0]
    with pytest.raises(ValueError):
        ref.causal_attention(q2, k1, v1)
    out, weights = mod.causal_attention(q2, k1, v1)
    assert out.shape == (2, 5, 3) and weights.shape == (2, 5, 5)


PROOFS: dict[str, Callable] = {
    name.removeprefix("prove_"): fn for name, fn in globals().items() if name.startswith("prove_")
}
BEHAVIOUR = sorted(EXPECTED_MUTANTS - NEVER_IMPORT - {"missing_function"})


def test_every_behaviour_mutant_has_a_proof():
    assert sorted(PROOFS) == BEHAVIOUR


@pytest.mark.parametrize("mid", BEHAVIOUR)
def test_behaviour_mutant_is_buggy(mid, ref, monkeypatch):
    fn = PROOFS[mid]
    extra = (monkeypatch,) if "monkeypatch" in inspect.signature(fn).parameters else ()
    fn(mutant(mid), ref, *extra)


# Each mutant carries ONE bug: the rest of the contract still holds.
@pytest.mark.parametrize("mid", sorted(set(BEHAVIOUR) - {"not_implemented", "no_shape_validation"}))
@pytest.mark.parametrize("shapes", MISMATCHED[:3] + MISMATCHED[4:5])
def test_behaviour_mutant_still_validates_shapes(mid, shapes):
    assert_rejects(mutant(mid).causal_attention, shapes)


@pytest.mark.parametrize("mid", sorted(set(BEHAVIOUR) - {"not_implemented"}))
def test_behaviour_mutant_single_head_contract(mid):
    head = mutant(mid).SingleHead(6, 2)
    assert all(isinstance(getattr(head, n), nn.Linear) and getattr(head, n).bias is None
               for n in ("query", "key", "value"))
    assert sum(p.numel() for p in head.parameters()) == 36


# ---------------------------------------------------------------- the correctness check above has teeth

# Values-correct by design: caught by the source scan and by the ValueError check instead.
VALUES_CORRECT = {"forbidden_api", "no_shape_validation"}


@pytest.mark.parametrize("mid", sorted(set(BEHAVIOUR) - VALUES_CORRECT))
def test_correctness_check_rejects_behaviour_mutant(mid, ref):
    with pytest.raises((AssertionError, RuntimeError, NotImplementedError, TypeError, ValueError)):
        check_all_correct(mutant(mid), ref)


def test_values_correct_mutants_are_caught_elsewhere(ref):
    for mid in sorted(VALUES_CORRECT):
        check_all_correct(mutant(mid), ref)
    from grader.checks.contract import static_forbidden

    assert static_forbidden(mutant_path("forbidden_api").read_text(), FORBIDDEN) == ["scaled_dot_product_attention"]
    with pytest.raises(pytest.fail.Exception):
        assert_rejects(mutant("no_shape_validation").causal_attention, MISMATCHED[0].values[0])
