"""The catalogue of misconceptions, as data a student bundle may carry.

The single source is `reference/mutants/<id>.py`: each docstring names its misconception and the
chapter section to reread. `build` reads those docstrings and runs each behavioural mutant on the
visible probes, keeping only the observations where it differs from the reference: its fingerprint.
The result is `grader/data/catalogue.json`, numbers and prose only, never code.
"""

from __future__ import annotations

import ast
import json
from functools import cache
from importlib.resources.abc import Traversable
from pathlib import Path

from pydantic import BaseModel

from grader.diagnosis.fingerprint import Observation, differs, observe_file
from grader.paths import CATALOGUE, ROOT

MUTANTS = ROOT / "reference" / "mutants"
REFERENCE = ROOT / "reference" / "attention.py"
# Written in a checkout by `python -m grader catalogue`; read wherever the package is installed.
DATA = Path(__file__).resolve().parents[1] / "data" / "catalogue.json"


class Misconception(BaseModel):
    id: str
    title: str
    section: str
    explanation: str
    kind: str
    fingerprint: dict[str, Observation] = {}


class Catalogue(BaseModel):
    misconceptions: dict[str, Misconception]


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


def build() -> Catalogue:
    """Read the mutants and fingerprint the behavioural ones (instructor side: needs reference/)."""
    from grader.probes import visible_probes

    probes = visible_probes()
    reference = observe_file(REFERENCE, probes)
    entries = {}
    for path in sorted(MUTANTS.glob("*.py")):
        fields = parse_docstring(path)
        fingerprint = {}
        if fields["kind"] == "behaviour":
            seen = observe_file(path, probes)
            fingerprint = {key: value for key, value in seen.items() if differs(value, reference.get(key))}
        entries[fields["diagnosis"]] = Misconception(
            id=fields["diagnosis"], title=fields["title"], section=fields["section"],
            explanation=fields["explanation"], kind=fields["kind"], fingerprint=fingerprint,
        )
    return Catalogue(misconceptions=entries)


def write(path: Path = DATA) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(build().model_dump(mode="json"), indent=1, sort_keys=True) + "\n")


@cache
def load(path: Path | Traversable = CATALOGUE) -> Catalogue:
    return Catalogue.model_validate_json(path.read_text())
