"""Every check the grader knows, collected from the declarations in the family modules.

The order is the families' order below, then definition order inside each module.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from grader.checks import contract, gradients, masking, numerics, worked
from grader.checks.base import CheckSpec

FAMILIES: tuple[ModuleType, ...] = (worked, masking, numerics, gradients, contract)


def declared(modules: Iterable[ModuleType]) -> dict[str, CheckSpec]:
    """Each `@check`-declared function of the modules, by id; an id declared twice is an error."""
    specs: dict[str, CheckSpec] = {}
    for module in modules:
        for obj in vars(module).values():
            spec = getattr(obj, "check_spec", None)
            if isinstance(spec, CheckSpec) and getattr(obj, "__module__", None) == module.__name__:
                if spec.id in specs:
                    raise ValueError(f"check {spec.id!r} is declared twice")
                specs[spec.id] = spec
    return specs


CHECKS: dict[str, CheckSpec] = declared(FAMILIES)
CHECK_IDS: tuple[str, ...] = tuple(CHECKS)


def markdown_table(specs: dict[str, CheckSpec] = CHECKS) -> str:
    """The table of checks in docs/grading-policy.md, generated from the declarations (a test keeps them equal)."""
    rows = [f"| `{s.id}` | {s.group} | {s.proves} |" for s in specs.values()]
    return "\n".join(["| id | group | what it proves |", "|---|---|---|", *rows])
