"""The rubric's pydantic models: the single source of the YAML format and its JSON Schema."""

from __future__ import annotations

import graphlib
import math
from typing import Annotated, Literal

from pydantic import ConfigDict, Discriminator, Field, StringConstraints, Tag, model_validator
from pydantic_core import PydanticCustomError

from grader.checks.base import DEFAULT_TOLERANCES, Tolerance
from grader.checks.observations import CRASH
from grader.checks.registry import CHECK_IDS, CHECKS
from grader.diagnosis.misconceptions import MISCONCEPTIONS
from grader.sandbox.models import Limits, MiB
from grader.vocabulary import FloatDTypeName, Visibility
from grader.vocabulary import FrozenModel as _Model

_SANDBOX = Limits()  # today's values: the defaults of every rubric limit

# A Literal of the registry's ids puts them in the JSON Schema, so editors can complete them.
CheckId = Literal[CHECK_IDS]  # type: ignore[valid-type]
MisconceptionId = Literal[tuple(MISCONCEPTIONS)]  # type: ignore[valid-type]
PartialCredit = Literal["fraction", "all_or_nothing"]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Identifier = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]
DottedName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")]
Points = Annotated[float, Field(ge=0, strict=True, allow_inf_nan=False)]


class ToleranceSpec(_Model):
    """Closeness for one dtype, as in torch.testing.assert_close: |a - b| <= atol + rtol * |b|."""

    atol: Annotated[float, Field(ge=0, strict=True, allow_inf_nan=False)]
    rtol: Annotated[float, Field(ge=0, strict=True, allow_inf_nan=False)]

    def as_tolerance(self) -> Tolerance:
        return Tolerance(atol=self.atol, rtol=self.rtol)


class RubricLimits(_Model):
    """Time and memory one submission may use; an unlisted limit keeps the grader's default."""

    call_s: Annotated[float, Field(gt=0, le=600, strict=True, allow_inf_nan=False)] = Field(
        _SANDBOX.call_s, description="Seconds for one call of the submission's code to reply.")
    import_s: Annotated[float, Field(gt=0, le=600, strict=True, allow_inf_nan=False)] = Field(
        _SANDBOX.load_s, description="Seconds for importing the submission (its module-level code).")
    submission_s: Annotated[float, Field(gt=0, le=3600, strict=True, allow_inf_nan=False)] = Field(
        _SANDBOX.submission_s, description="Seconds for the whole submission: import and every call.")
    memory_mib: Annotated[int, Field(ge=64, le=1 << 20, strict=True)] = Field(
        _SANDBOX.memory_headroom_bytes // MiB,
        description="MiB of address space the submission may add above the grader's forked torch process.")

    def sandbox_limits(self, base: Limits) -> Limits:
        """`base` with these limits; CPU time grows in proportion to the largest raised deadline."""
        stretch = max(1.0, self.submission_s / _SANDBOX.submission_s, self.call_s / _SANDBOX.call_s,
                      self.import_s / _SANDBOX.load_s)
        return base.model_copy(update={
            "call_s": self.call_s, "load_s": self.import_s, "submission_s": self.submission_s,
            "memory_headroom_bytes": self.memory_mib * MiB, "cpu_s": math.ceil(_SANDBOX.cpu_s * stretch),
        })


class Feedback(_Model):
    """Replaces the check's own text; observed and expected numbers are still shown beside it."""

    passed: Text | None = Field(None, description="Shown when the check passes.")
    failed: Text | None = Field(None, description="Shown when the check fails or raises.")


class Hint(_Model):
    """A hint for some of what the check can find (its declared findings), or for some bugs the
    diagnosis can name, not for every failure."""

    text: Text
    when: list[Text] | None = Field(None, min_length=1, description="Shown only when the check's feedback quotes one "
                                    "of these findings (each check declares its own: worked_example 'weights' and "
                                    "'out', ...).")
    named: list[MisconceptionId] | None = Field(
        None, min_length=1, description="Shown only while the report's headline diagnosis is one of these "
                                        "misconceptions (grader/diagnosis/misconceptions.py): a hint about one bug.")
    not_named: list[MisconceptionId] | None = Field(
        None, min_length=1, description="Not shown while the headline diagnosis is one of these: a hint that points "
                                        "at another step than that bug's (check your scores, for a mask bug whose "
                                        "scores are right).")

    @model_validator(mode="after")
    def _for_something(self) -> Hint:
        if self.when is None and self.named is None and self.not_named is None:
            raise ValueError("a hint with `text` needs `when`, `named` or `not_named`; a hint for every failure is a "
                             "plain string")
        return self


# Either form of a hint, told apart by its type: an error names the form it is in, not every form it is not.
UNION_TAGS = ("plain hint", "hint with when")
HintEntry = Annotated[
    Annotated[Text, Tag(UNION_TAGS[0])] | Annotated[Hint, Tag(UNION_TAGS[1])],
    Discriminator(lambda v: UNION_TAGS[1] if isinstance(v, dict | Hint) else UNION_TAGS[0]),
]


class RubricCheck(_Model):
    id: CheckId = Field(description="A check id from grader/checks/registry.py.")
    points: Points = Field(description="Points for passing every case.")
    partial_credit: PartialCredit = Field(
        "all_or_nothing",
        description="'fraction': points times the fraction of sub-cases passed; 'all_or_nothing': full points only on a pass.",
    )
    visibility: Visibility = Field(
        "visible",
        description="Gradescope's rule: a student's self-check shows only 'visible' checks.",
    )
    group: Text | None = Field(None, description="Subtotal this check counts toward; default: the registry's group.")
    tolerance: dict[FloatDTypeName, ToleranceSpec] | None = Field(
        None, description="Overrides the rubric's tolerances for this check only."
    )
    requires: list[CheckId] = Field(
        default=[], description="Checks that must pass first; otherwise this one is skipped, naming them."
    )
    ceiling: Annotated[float, Field(ge=0, le=1, strict=False, allow_inf_nan=False)] | None = Field(
        None,
        description="Severity band: while this check fails (finds its bug; a check that could not run does not "
                    "set the band), the total is at most this fraction of the maximum (0.5 for a leak of future "
                    "information, say).",
    )
    ceiling_when: list[Text] | None = Field(
        None, description="The band holds only when the check finds one of these (its declared findings: "
                          "mask_structure 'above' and 'sums' are leaks, its 'nan' is not); absent: any failure.")
    feedback: Feedback | None = None
    hints: list[HintEntry] = Field(
        default=[], description="Revealed one per failing run with changed code: the first, then the next, never the "
                                "solution; a hint with `when` only while the check finds that.",
    )

    def hints_for(self, finding: str | None, headline: str | None = None) -> list[str]:
        """The hints that speak to what the check found and to the bug the headline diagnosis names:
        every plain one, and those `when` it and `named` for it. Those named for the headline's bug come
        first: a general hint (check your scores) misleads a student whose bug comes after the scores."""
        fitting = [h for h in self.hints if isinstance(h, str) or ((h.when is None or finding in h.when)
                                                                  and (h.named is None or headline in h.named)
                                                                  and (h.not_named is None or headline not in h.not_named))]
        named = [h for h in fitting if not isinstance(h, str) and h.named is not None]
        return [h if isinstance(h, str) else h.text for h in named + [h for h in fitting if h not in named]]


class UnseenBand(_Model):
    """A severity band set by a check a student view leaves out, kept without its check's name: the
    self-check tells a student when it found the kind of bug that band caps."""

    ceiling: Annotated[float, Field(ge=0, le=1, strict=False, allow_inf_nan=False)]
    when: list[Text] | None = Field(None, description="The findings it caps (its check's `ceiling_when`); "
                                                      "absent: any failure of that check, which a check shown "
                                                      "here cannot tell.")
    needs: Text | None = Field(None, description="The entry point its check calls: what a check shown here finds "
                                                 "in another entry point's calls says nothing of this band.")


class Rubric(_Model):
    """One assignment's rubric: which checks count, for how much, and what a student is told."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="Rubric")

    assignment_id: Identifier
    title: Text
    secret_env: Annotated[str, StringConstraints(pattern=r"^[A-Z_][A-Z0-9_]*$")] = Field(
        description="Environment variable holding the secret that seeds hidden probes."
    )
    tolerances: dict[FloatDTypeName, ToleranceSpec] = Field(
        default={}, description="Default closeness per dtype; unlisted dtypes use the grader's defaults."
    )
    limits: RubricLimits | None = Field(
        None, description="Time and memory per submission; absent: the sandbox's own (the grader's defaults)."
    )
    checks: list[RubricCheck] = Field(min_length=1)
    unseen_bands: list[UnseenBand] = Field(
        default=[], description="Written by `student_view`: the bands of the checks it leaves out, without "
                                "their names, so the self-check can say when the grade may be capped lower.")

    @model_validator(mode="after")
    def _consistent(self) -> Rubric:
        problems = _cross_check_problems(self)
        if problems:
            summary = "; ".join(f"{'.'.join(map(str, loc))}: {msg}" for loc, msg in problems)
            raise PydanticCustomError("rubric_consistency", "{summary}", {"summary": summary, "problems": problems})
        return self

    def check(self, check_id: str) -> RubricCheck:
        for check in self.checks:
            if check.id == check_id:
                return check
        raise KeyError(f"check {check_id!r} is not in rubric {self.assignment_id!r}")

    @property
    def check_ids(self) -> list[str]:
        return [check.id for check in self.checks]

    @property
    def entry_points(self) -> tuple[str, ...]:
        """What the submission must define: the names the rubric's checks call, in order."""
        return tuple(dict.fromkeys(CHECKS[c.id].needs for c in self.checks))

    @property
    def max_score(self) -> float:
        return sum(check.points for check in self.checks)

    def group_of(self, check_id: str) -> str:
        return self.check(check_id).group or CHECKS[check_id].group

    def tolerance(self, check_id: str, dtype_name: str) -> Tolerance:
        """The check's override, else the rubric's default, else the grader's default for the dtype."""
        override = next((c.tolerance for c in self.checks if c.id == check_id), None) or {}
        spec = override.get(dtype_name) or self.tolerances.get(dtype_name)
        if spec is not None:
            return spec.as_tolerance()
        if dtype_name not in DEFAULT_TOLERANCES:
            raise KeyError(f"no tolerance for dtype {dtype_name!r} in rubric {self.assignment_id!r}")
        return DEFAULT_TOLERANCES[dtype_name]

    def student_view(self) -> Rubric:
        """What a student's self-check runs: the `visible` checks with the same points, texts and hints.

        A prerequisite the student cannot see is dropped from `requires`: the self-check never runs it,
        so it could never pass, and naming it would reveal it.
        """
        visible = [c for c in self.checks if c.visibility == "visible"]
        if not visible:
            raise ValueError(f"rubric {self.assignment_id!r} has no visible check, so a self-check would run nothing")
        ids = {c.id for c in visible}
        checks = [{**c.model_dump(), "requires": [p for p in c.requires if p in ids]} for c in visible]
        unseen = [*self.unseen_bands, *(UnseenBand(ceiling=c.ceiling, when=c.ceiling_when, needs=CHECKS[c.id].needs)
                                        for c in self.checks
                                        if c.id not in ids and c.ceiling is not None)]
        return Rubric.model_validate({**self.model_dump(), "checks": checks,
                                      "unseen_bands": [b.model_dump() for b in unseen]})

    def run_order(self) -> list[str]:
        """Check ids, each after its prerequisites; among those ready at once, in rubric order."""
        position = {c.id: i for i, c in enumerate(self.checks)}
        sorter = _prerequisites(self)
        sorter.prepare()  # a validated rubric has no cycle
        order: list[str] = []
        while sorter.is_active():
            ready = sorted(sorter.get_ready(), key=position.__getitem__)
            order += ready
            sorter.done(*ready)
        return order


Problem = tuple[tuple[str | int, ...], str]


def _cross_check_problems(rubric: Rubric) -> list[Problem]:
    """What a per-field model cannot see: duplicates and the shape of the `requires` graph."""
    problems: list[Problem] = []
    first_index: dict[str, int] = {}
    for i, check in enumerate(rubric.checks):
        if check.id in first_index:
            problems.append(((("checks", i, "id")), f"duplicate check id {check.id!r}, already checks[{first_index[check.id]}]"))
        else:
            first_index[check.id] = i
    for i, check in enumerate(rubric.checks):
        for k, prerequisite in enumerate(check.requires):
            if prerequisite == check.id:
                problems.append((("checks", i, "requires", k), f"check {check.id!r} requires itself"))
            elif prerequisite not in first_index:
                problems.append((
                    ("checks", i, "requires", k),
                    f"requires {prerequisite!r}, which this rubric does not include; add that check or drop the requirement",
                ))
    for i, check in enumerate(rubric.checks):
        declared = (*CHECKS[check.id].findings, CRASH)  # any check can find a call that raised
        named = [(("checks", i, "ceiling_when", j), f) for j, f in enumerate(check.ceiling_when or [])]
        named += [(("checks", i, "hints", k, "when", j), f) for k, hint in enumerate(check.hints)
                  if not isinstance(hint, str) for j, f in enumerate(hint.when or ())]
        problems += [(loc, f"{check.id} reports no finding {f!r}; it reports: {', '.join(declared)}")
                     for loc, f in named if f not in declared]
        if check.ceiling_when is not None and check.ceiling is None:
            problems.append((("checks", i, "ceiling_when"), "ceiling_when without a ceiling: add the ceiling or drop it"))
    limits = rubric.limits
    if limits is not None:
        for name in ("call_s", "import_s"):
            if getattr(limits, name) > limits.submission_s:
                problems.append((("limits", name), f"{getattr(limits, name):g} s is longer than submission_s "
                                 f"({limits.submission_s:g} s), the deadline for the whole submission"))
    if problems:
        return problems
    return _cycle_problems(rubric, first_index)


def _prerequisites(rubric: Rubric) -> graphlib.TopologicalSorter:
    return graphlib.TopologicalSorter({c.id: c.requires for c in rubric.checks})


def _cycle_problems(rubric: Rubric, index: dict[str, int]) -> list[Problem]:
    try:
        _prerequisites(rubric).prepare()
    except graphlib.CycleError as err:
        # graphlib lists each prerequisite before the check that needs it; read it the other way,
        # from the check that comes first in the rubric, so the same file always gives the same text.
        loop = list(reversed(err.args[1][:-1]))
        start = min(range(len(loop)), key=lambda i: index[loop[i]])
        loop = loop[start:] + loop[:start]
        last = loop[-1]  # its `requires` entry closes the cycle
        k = rubric.checks[index[last]].requires.index(loop[0])
        return [(("checks", index[last], "requires", k),
                 "requires cycle: " + " -> ".join([*loop, loop[0]]) + "; no order can run these checks")]
    return []
