"""Fingerprints: what each catalogued mutant returns on the public probes, as data a student bundle may carry.

The source is `reference/mutants/<id>.py` (instructor only), one file per declared misconception
whose evidence includes a fingerprint. `build` runs each on the visible probes in this process and
keeps only the observations where it differs from the reference, rounded to the precision the
matcher compares at. The result, `grader/data/catalogue.json`, holds numbers only: no code and no
prose (titles and messages live in grader/diagnosis/misconceptions.py).
"""

from __future__ import annotations

import ast
import json
import math
import os
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import BaseModel, PrivateAttr

from grader.diagnosis.fingerprint import (
    Compiled,
    Observation,
    TensorValue,
    compile_fingerprint,
    differs,
    observe_file,
)
from grader.diagnosis.misconceptions import DECLARED
from grader.paths import CATALOGUE, ROOT, atomic_write_text
from grader.probes import visible_probes

MUTANTS = ROOT / "reference" / "mutants"
REFERENCE = ROOT / "reference" / "attention.py"
# Written in a checkout by `python -m grader catalogue`; read wherever the package is installed.
DATA = Path(__file__).resolve().parents[1] / "data" / "catalogue.json"
# Significant digits kept: the matcher's rtol is 1e-5, so 7 digits lose nothing it can see.
DIGITS = 7
# Elements kept per tensor, evenly spaced: two different bugs disagree on almost every element.
SAMPLE = 16


class CatalogueSourceMissing(RuntimeError):
    """The mutants (instructor side) are not here: a student bundle cannot rebuild its fingerprints."""


class Catalogue(BaseModel):
    fingerprints: dict[str, dict[str, Observation]] = {}
    _compiled: dict[str, Compiled] | None = PrivateAttr(default=None)

    def compiled(self) -> dict[str, Compiled]:
        """The fingerprints as the matcher reads them, made once per loaded catalogue."""
        if self._compiled is None:
            self._compiled = {mid: compile_fingerprint(fp) for mid, fp in self.fingerprints.items()}
        return self._compiled


def parse_docstring(path: Path) -> dict[str, str]:
    """Title, explanation and the Diagnosis/Section/Kind lines of a mutant's docstring."""
    doc = ast.get_docstring(ast.parse(path.read_text())) if path.name != "syntax_error.py" else None
    if doc is None:  # a file that does not parse still has its docstring at the top
        text = path.read_text()
        doc = text.split('"""')[1].strip()
    title, _, rest = doc.partition("\n")
    fields, body = {}, []
    for line in rest.strip().splitlines():
        key, sep, value = line.partition(": ")
        if sep and key in ("Diagnosis", "Section", "Kind"):
            fields[key.lower()] = value.strip()
        else:
            body.append(line.strip())
    return {"title": title.strip().rstrip("."), "explanation": " ".join(b for b in body if b)} | fields


def _compact(value: Observation) -> Observation:
    if isinstance(value, TensorValue):
        step = max(1, math.ceil(len(value.data) / SAMPLE))
        data = [float(f"{x:.{DIGITS}g}") if isinstance(x, float) else x for x in value.data[::step]]
        return TensorValue(shape=value.shape, data=data, step=step)
    return value


def build(mutants: Path | None = None) -> Catalogue:
    """Run the fingerprinted mutants on the visible probes (instructor side: needs reference/)."""
    mutants = MUTANTS if mutants is None else mutants
    if not mutants.is_dir() or not REFERENCE.is_file():
        raise CatalogueSourceMissing(
            f"cannot rebuild the fingerprints: {mutants} (the instructor's mutants) is not here. "
            f"A student bundle ships its fingerprints ready-made in {DATA.name}; rebuild them in the "
            "project's source tree.")
    # Only probes marked for fingerprints: the extra lengths and finite-difference steps add size, not evidence.
    probes = [p for p in visible_probes() if p.info.get("fingerprint", True)]
    reference = observe_file(REFERENCE, probes)
    fingerprints = {}
    for m in DECLARED:
        path = mutants / f"{m.id}.py"
        if m.fingerprinted and path.is_file():
            seen = observe_file(path, probes)
            fingerprints[m.id] = {key: _compact(value) for key, value in seen.items()
                                  if differs(value, reference.get(key))}
    return Catalogue(fingerprints=fingerprints)


def dumps(catalogue: Catalogue) -> str:
    """Compact JSON, one misconception per line, so a change reads as a diff of the lines it touches."""
    data = catalogue.model_dump(mode="json")["fingerprints"]
    lines = [f"{json.dumps(mid)}:{json.dumps(fp, separators=(',', ':'), sort_keys=True)}"
             for mid, fp in sorted(data.items())]
    return '{"fingerprints":{\n' + ",\n".join(lines) + "\n}}\n"


def write(path: Path | None = None) -> Path:
    """Rebuild and write atomically; raises CatalogueSourceMissing without the mutants."""
    path = DATA if path is None else path
    atomic_write_text(path, dumps(build()))
    os.chmod(path, 0o644)  # shipped data: readable by whoever installs it
    load.cache_clear()
    return path


@cache
def load(path: Path | Traversable = CATALOGUE) -> Catalogue:
    if not path.is_file():
        return Catalogue()
    return Catalogue.model_validate_json(path.read_text())
