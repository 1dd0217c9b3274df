"""What "the grader agrees with the instructor" means, for both corpora (used by the tests and bench/accuracy.py).

Real code: the score (out of 100) lies in the frozen band, every expected id is among the
diagnoses, the expected first id is named first, and correct code (band [100, 100]) gets no
diagnosis at all. Mutants: a non-equivalent mutant is killed when it loses points; an equivalent
rewrite is a false alarm when it loses any point or gets any diagnosis; the expected id counts
when it is the first diagnosis.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from grader.diagnosis.misconceptions import DECLARED

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "real"
MANIFEST = REAL / "expected.yaml"
SECRET = "accuracy-secret"  # fixed, so every run grades with the same hidden probes


@dataclass(frozen=True)
class Expectation:
    name: str
    band: tuple[float, float]
    ids: tuple[str, ...]
    first: str | None
    why: str

    @property
    def correct(self) -> bool:
        return self.band == (100, 100)


class ManifestError(ValueError):
    """An expectations file that cannot be read as one: the message names the file and the entry."""


class _Entry(BaseModel):
    """One entry of an expectations file; other keys (where a file's style comes from) are notes."""

    model_config = ConfigDict(extra="ignore")
    band: tuple[float, float]
    ids: list[str]
    first: str | None
    why: str

    @model_validator(mode="after")
    def _coherent(self) -> _Entry:
        lo, hi = self.band
        if not 0 <= lo <= hi <= 100:
            raise ValueError(f"band {list(self.band)} is not [low, high] within 0..100")
        known = {m.id for m in DECLARED}
        unknown = [i for i in [*self.ids, *([self.first] if self.first else [])] if i not in known]
        if unknown:
            raise ValueError(f"unknown misconception ids {unknown}")
        if self.first and self.first not in self.ids:
            raise ValueError(f"first {self.first!r} is not among ids {self.ids}")
        return self


def _problem(err) -> str:
    """One pydantic error as a reader of the YAML file says it: the field (if any), then what is wrong."""
    what = err["msg"].removeprefix("Value error, ")
    return f"{'.'.join(map(str, err['loc']))}: {what}" if err["loc"] else what


def load_manifest(path: Path = MANIFEST) -> dict[str, Expectation]:
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ManifestError(f"cannot read expectations {path}: {exc}") from None
    if not isinstance(data, dict):
        raise ManifestError(f"{path}: expected a mapping of file name to expectation, got {type(data).__name__}")
    out = {}
    for name, raw in data.items():
        try:
            e = _Entry.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(_problem(err) for err in exc.errors())
            raise ManifestError(f"{path}: entry {name!r}: {problems}") from None
        out[str(name)] = Expectation(str(name), e.band, tuple(e.ids), e.first, e.why)
    return out


def real_files(folder: Path = REAL) -> list[Path]:
    """The implementations of a real-code folder: every .py file but the test harness's own."""
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("test_") and p.name != "conftest.py")


def percent(report) -> float:
    return round(100.0 * report.score / report.max_score, 2) if report.max_score else 0.0


def named(report) -> list[str]:
    return [d.id for d in report.diagnoses]


def band_problem(exp: Expectation, report) -> str | None:
    score = percent(report)
    lo, hi = exp.band
    return None if lo <= score <= hi else f"score {score:g} outside [{lo:g}, {hi:g}]"


def id_problem(exp: Expectation, report) -> str | None:
    ids = named(report)
    if exp.correct and ids:
        return f"diagnoses {ids} on correct code"
    missing = [i for i in exp.ids if i not in ids]
    if missing:
        return f"expected {missing} among {ids}"
    if exp.first and ids[:1] != [exp.first]:
        return f"expected {exp.first} first, got {ids}"
    return None


def real_problems(exp: Expectation, report) -> list[str]:
    return [p for p in (band_problem(exp, report), id_problem(exp, report)) if p]


@dataclass(frozen=True)
class MutantVerdict:
    name: str
    equivalent: bool
    expected: str | None
    score: float
    ids: tuple[str, ...]

    @property
    def killed(self) -> bool:
        return not self.equivalent and self.score < 100

    @property
    def false_alarm(self) -> bool:
        return self.equivalent and (self.score < 100 or bool(self.ids))

    @property
    def expected_first(self) -> bool:
        return self.expected is not None and self.ids[:1] == (self.expected,)

    def problem(self) -> str | None:
        """Why this mutant misses a target, or None."""
        if self.equivalent:
            return f"equivalent rewrite scored {self.score:g} with diagnoses {list(self.ids)}" if self.false_alarm else None
        if not self.killed:
            return "full marks for a non-equivalent mutant"
        if self.expected and not self.expected_first:
            return f"expected {self.expected} first, got {list(self.ids)}"
        return None


def mutant_verdict(mutant, report) -> MutantVerdict:
    return MutantVerdict(mutant.name, mutant.equivalent, mutant.expected, percent(report), tuple(named(report)))


@dataclass(frozen=True)
class Summary:
    mutants: int
    killed: int
    equivalents: int
    false_alarms: int
    with_expected: int
    expected_first: int
    real: int
    real_band: int
    real_ids: int
    real_both: int

    @property
    def kill_rate(self) -> float:
        return self.killed / self.mutants if self.mutants else 1.0

    @property
    def first_rate(self) -> float:
        return self.expected_first / self.with_expected if self.with_expected else 1.0


def summarise(verdicts: list[MutantVerdict], real: dict[str, tuple[Expectation, object]]) -> Summary:
    plain = [v for v in verdicts if not v.equivalent]
    eq = [v for v in verdicts if v.equivalent]
    with_expected = [v for v in plain if v.expected]
    band_ok = [n for n, (e, r) in real.items() if band_problem(e, r) is None]
    ids_ok = [n for n, (e, r) in real.items() if id_problem(e, r) is None]
    return Summary(len(plain), sum(v.killed for v in plain), len(eq), sum(v.false_alarm for v in eq),
                   len(with_expected), sum(v.expected_first for v in with_expected),
                   len(real), len(band_ok), len(ids_ok), len(set(band_ok) & set(ids_ok)))


TARGETS = {"kill_rate": 0.98, "false_alarms": 0, "first_rate": 0.90}
