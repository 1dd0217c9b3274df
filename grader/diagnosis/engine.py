"""Name the misconceptions behind a submission's behaviour, each in its own words and numbers.

Everything a diagnosis is comes from its declaration (grader/diagnosis/misconceptions.py): the
engine tries each declaration's evidence, strongest first, fills its message with the facts that
evidence read from the submission, and ranks what it found by the points lost on the checks each
misconception costs. A submission that passes every check gets no diagnosis.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.checks.base import CheckOutcome
from grader.checks.observations import Observations
from grader.diagnosis import claims
from grader.diagnosis.catalogue import Catalogue
from grader.diagnosis.evidence import Context, Facts, matches_fingerprint
from grader.diagnosis.misconceptions import ALL, MISCONCEPTIONS, STRENGTH, Misconception
from grader.diagnosis.models import Diagnosis

MAX_DIAGNOSES = 3
MATCH_THRESHOLD = 0.75


@dataclass
class Finding:
    misconception: Misconception
    kind: str  # which evidence named it
    facts: Facts
    points: float = 0.0


def find(ctx: Context, declared: dict[str, Misconception] = MISCONCEPTIONS) -> list[Finding]:
    """Every declared misconception some evidence names, with the facts that evidence read."""
    loaded = ctx.obs.load_error is None
    found = []
    for m in declared.values():
        for e in m.evidence:
            if not loaded and e.kind != "file":
                break  # nothing ran: only how the file failed can be known
            if e.read is None:
                facts = {} if matches_fingerprint(ctx, m.id, MATCH_THRESHOLD) else None
            else:
                facts = e.read(ctx)
            if facts is not None and e.read is not None and (refusal := claims.refused(m.claims, ctx, facts)):
                ctx.refused[m.id] = refusal  # its evidence contradicts what its message would say: not printed
                break
            if facts is not None:
                found.append(Finding(m, e.kind, facts))
                break
    named = {f.misconception.id for f in found}
    return [f for f in found if not named & set(f.misconception.explained_by)]


def message(finding: Finding) -> str:
    """The submission's own facts first, then the chapter's reason; never a sentence without its facts."""
    m = finding.misconception
    try:
        said = m.says.format_map(finding.facts)
    except (KeyError, IndexError):
        said = ""
    if not said and finding.kind == "fingerprint":
        said = "Your results on the public probes match the ones this mistake produces."
    return " ".join(p for p in (said, m.explains) if p)


def points_lost(finding: Finding, outcomes: dict[str, CheckOutcome], lost: dict[str, float] | None) -> float:
    m = finding.misconception
    if m.stub:  # what waits for the stub, not what the written code's bugs lose beside it
        ids = [c for c, o in outcomes.items() if o.not_written]
    else:
        ids = outcomes.keys() if m.costs == ALL else [c for c in m.costs if c in outcomes]
    if lost is None:  # no rubric at hand: each failing check counts once
        return float(sum(outcomes[c].status != "passed" for c in ids))
    return float(sum(lost.get(c, 0.0) for c in ids))


def diagnose(obs: Observations, outcomes: dict[str, CheckOutcome], catalogue: Catalogue,
             lost: dict[str, float] | None = None,
             declared: dict[str, Misconception] = MISCONCEPTIONS) -> list[Diagnosis]:
    """At most three diagnoses, the one costing most points first, a stub after every bug in written code.

    `lost` maps check ids to the points the submission lost on them (a skipped check's points
    counted on the prerequisite that failed); without it every failing check counts once.
    """
    # A pass that saw a bug it leaves to another check (SingleHead wired right over a wrong
    # causal_attention, whose checks may not be in this view) still lets the diagnosis name it.
    if all(o.status == "passed" and not o.findings for o in outcomes.values()) and obs.load_error is None:
        return []
    ctx = Context(obs, outcomes, catalogue.compiled())
    findings = find(ctx, declared)
    order = {mid: i for i, mid in enumerate(declared)}
    for f in findings:
        f.points = points_lost(f, outcomes, lost)
    findings.sort(key=lambda f: (f.misconception.stub, -f.points, STRENGTH[f.kind], order[f.misconception.id]))
    return [Diagnosis(id=f.misconception.id, title=f.misconception.title, message=message(f),
                      section=f.misconception.section, cards=list(f.misconception.cards),
                      quiz=list(f.misconception.quiz))
            for f in findings[:MAX_DIAGNOSES]]
