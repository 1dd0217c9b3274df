"""Checks are declared once: the registry, the scorer and the grading policy's table derive from @check."""

from __future__ import annotations

import types

import pytest

from grader.checks.base import HEAD, CheckOutcome, check
from grader.checks.registry import CHECK_IDS, CHECKS, FAMILIES, declared, markdown_table
from grader.paths import ROOT


def test_every_declared_check_has_its_function_and_text():
    assert CHECK_IDS and len(set(CHECK_IDS)) == len(CHECK_IDS)
    for spec in CHECKS.values():
        assert callable(spec.evaluate) and spec.title and spec.proves and spec.passed and spec.section
        assert spec.evaluate.check_spec is spec
        assert any(spec.evaluate.__module__ == m.__name__ for m in FAMILIES)


def test_readme_table_is_generated_from_the_declarations():
    readme = (ROOT / "docs" / "grading-policy.md").read_text(encoding="utf-8")
    assert markdown_table() in readme, "regenerate the table in docs/grading-policy.md with registry.markdown_table()"


def test_a_toy_check_declared_at_run_time_is_registered_and_runs():
    family = types.ModuleType("toy_family")

    @check("toy", title="Toy", group="Toy", section=HEAD, proves="Nothing.", passed="Toy passed.")
    def toy(obs, tol):
        return CheckOutcome("passed", 1, 1, "")

    toy.__module__ = family.__name__
    family.toy = toy
    specs = declared([*FAMILIES, family])
    assert list(specs)[-1] == "toy" and list(specs)[:-1] == list(CHECK_IDS)
    assert specs["toy"].run(None, None).feedback == "Toy passed."
    assert "| `toy` | Toy | Nothing. |" in markdown_table(specs)


def test_an_id_declared_twice_is_refused():
    family = types.ModuleType("twice")
    for name in ("a", "b"):
        fn = check("dup", title="D", group="G", section=HEAD, proves="p", passed="q")(lambda obs, tol: None)
        fn.__module__ = family.__name__
        setattr(family, name, fn)
    with pytest.raises(ValueError, match="declared twice"):
        declared([family])
