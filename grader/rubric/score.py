"""Turn check outcomes into points, group subtotals and what a student is told."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from grader.checks.base import CheckOutcome
from grader.checks.observations import CRASH
from grader.checks.registry import CHECKS
from grader.rubric.hint_state import HintProgress, HintState
from grader.rubric.model import Rubric, RubricCheck
from grader.rubric.results import CheckReport, GroupTotal, apply_ceiling, costliest_first
from grader.vocabulary import Audience, Status


class ScoredChecks(BaseModel):
    model_config = ConfigDict(extra="forbid")

    checks: list[CheckReport]
    groups: list[GroupTotal]
    score: float
    max_score: float


def score_checks(
    rubric: Rubric,
    outcomes: dict[str, CheckOutcome],
    *,
    audience: Audience,
    hint_key: str | None = None,
    hint_state: HintState | None = None,
    hint_source: str | None = None,
) -> ScoredChecks:
    """`hint_state` (loaded and saved by the caller, `grader.rubric.hint_state`) is advanced in place;
    `hint_source` (a hash of the submission's code) makes a failing check's next hint wait for
    changed code: rerunning the same code shows the same hint. Every failing check's hint is given
    (`give_hints` gives only those a reader is shown, and for the bug the headline names)."""
    statuses = _statuses(rubric, outcomes)
    shown = [c for c in rubric.checks if audience == "instructor" or c.visibility == "visible"]
    reports = [_report(rubric, check, statuses, outcomes.get(check.id), audience) for check in shown]

    groups: dict[str, list[CheckReport]] = {}
    for report in reports:
        groups.setdefault(report.group, []).append(report)
    score, max_score = _total(r.score for r in reports), _total(r.max_score for r in reports)
    score = apply_ceiling(reports, score, max_score)
    scored = ScoredChecks(
        checks=reports,
        groups=[
            GroupTotal(name=name, score=_total(r.score for r in members), max_score=_total(r.max_score for r in members))
            for name, members in groups.items()
        ],
        score=score,
        max_score=max_score,
    )
    return give_hints(rubric, scored, outcomes, hint_key=hint_key, hint_state=hint_state, hint_source=hint_source)


def give_hints(rubric: Rubric, scored: ScoredChecks, outcomes: dict[str, CheckOutcome], *,
               hint_key: str | None = None, hint_state: HintState | None = None, hint_source: str | None = None,
               headline: str | None = None, spelled_out: int | None = None) -> ScoredChecks:
    """Each failing check's hint, chosen by what the check found and by the misconception the headline
    diagnosis names (`headline`), and spent only when its reader sees it: with `spelled_out`, only
    the checks a screenful spells out (`costliest_first`, as the terminal shows them) get one, and
    the others' hints wait, unspent, for the run that shows them."""
    hints = _Hints(rubric, hint_key, hint_state, hint_source)
    seen = None if spelled_out is None else {r.id for r in costliest_first(scored.checks)[:spelled_out]}
    checks = []
    for r in scored.checks:
        outcome = outcomes.get(r.id)
        # A hint is about what the check found; a check that could not run (the file does not
        # compile, the call raised, a stub not written yet) found nothing yet, and its finding already says why.
        wanted = r.status == "failed" and outcome is not None and not outcome.not_written
        hint = hints.reveal(rubric.check(r.id), outcome.finding, headline) \
            if wanted and (seen is None or r.id in seen) else None
        checks.append(r.model_copy(update={"hint": hint}))
    return scored.model_copy(update={"checks": checks})


def _statuses(rubric: Rubric, outcomes: dict[str, CheckOutcome]) -> dict[str, Status]:
    statuses: dict[str, Status] = {}
    for check_id in rubric.run_order():
        if any(statuses[p] != "passed" for p in rubric.check(check_id).requires):
            statuses[check_id] = "skipped"
        elif check_id in outcomes:
            statuses[check_id] = outcomes[check_id].status
        else:
            # The caller computes every outcome it does not know to be skipped; a gap is a grader bug.
            raise ValueError(f"no outcome for check {check_id!r}, which the rubric runs")
    return statuses


def _report(
    rubric: Rubric,
    check: RubricCheck,
    statuses: dict[str, Status],
    outcome: CheckOutcome | None,
    audience: Audience,
) -> CheckReport:
    spec = CHECKS[check.id]
    status = statuses[check.id]
    common = dict(
        id=check.id,
        title=spec.title,
        group=rubric.group_of(check.id),
        status=status,
        max_score=check.points,
        visibility=check.visibility,
        section=spec.section,
        ceiling=_band(check, outcome, status),
        unseen_ceiling=_unseen_band(rubric, outcome, status, spec.needs),
    )
    if status == "skipped" or outcome is None:
        return CheckReport(**common, score=0.0, feedback=_skipped_feedback(rubric, check, statuses, audience))
    return CheckReport(
        **common,
        score=_score(check, outcome),
        feedback=_feedback(check, outcome, spec.passed),
        expected=outcome.expected,
        observed=outcome.observed,
        cases_passed=outcome.cases_passed,
        cases_total=outcome.cases_total,
        not_written=list(outcome.not_written),
    )


def _score(check: RubricCheck, outcome: CheckOutcome) -> float:
    if outcome.status == "passed":
        return check.points
    if check.partial_credit == "fraction" and outcome.cases_total > 0:
        return round(check.points * outcome.cases_passed / outcome.cases_total, 6)
    return 0.0


def _feedback(check: RubricCheck, outcome: CheckOutcome, declared_passed: str) -> str:
    override = check.feedback
    if outcome.status == "passed":
        if outcome.feedback != declared_passed:
            return outcome.feedback  # passed with words of its own about this file: no fixed text is as true
        return (override and override.passed) or outcome.feedback
    # The check's own message names the row, the probe or what raised, which no fixed text can.
    # A check that could not run ("error") says so itself; the rubric's text describes a failure.
    if override and override.failed and outcome.status == "failed":
        return f"{override.failed}\n{outcome.feedback}"
    return outcome.feedback


def _skipped_feedback(rubric: Rubric, check: RubricCheck, statuses: dict[str, Status], audience: Audience) -> str:
    blockers = [p for p in check.requires if statuses[p] != "passed"]
    # A student is never told the name of a check hidden from them.
    named = [
        f"“{CHECKS[p].title}” ({p})"
        for p in blockers
        if audience == "instructor" or rubric.check(p).visibility == "visible"
    ]
    if len(named) < len(blockers):
        named.append("a hidden check")
    return (
        f"Skipped: this check needs {' and '.join(named)} to pass first. "
        "Fix that one; it is the root cause, reported once."
    )


def _band(check: RubricCheck, outcome: CheckOutcome | None, status: str) -> float | None:
    """The severity band this check sets: when it failed, finding what `ceiling_when` names (anything,
    when it names nothing); when it could not run, only where the rubric names a crash."""
    found = set(outcome.findings if outcome is not None else ())
    named = set(check.ceiling_when) if check.ceiling_when is not None else None
    if status == "failed" and (named is None or found & named):
        return check.ceiling
    if status == "error" and named is not None and CRASH in found & named:
        return check.ceiling
    return None


def _unseen_band(rubric: Rubric, outcome: CheckOutcome | None, status: str, needs: str) -> float | None:
    """The lowest band a check this view leaves out sets on what this check found (a student view's
    `unseen_bands`: a crash, wrong values), so the self-check can say the grade may be capped lower."""
    if outcome is None or status == "skipped" or outcome.not_written:
        return None
    found = set(outcome.findings)
    # A band for any failure of its own check says nothing about what a check shown here found.
    # A crash is the entry point's own: SingleHead's __init__ raising says nothing of causal_attention's calls.
    # A wrong value is not: a head's wrong output is its causal_attention's difference (single_head says so).
    return min((b.ceiling for b in rubric.unseen_bands if b.when is not None
                and (found - ({CRASH} if b.needs not in (None, needs) else set())) & set(b.when)), default=None)


def _total(values) -> float:
    return round(sum(values), 6)


class _Hints:
    """With a hint state, a failing check's next hint is revealed when its code has changed since
    the last one was shown (every failing run when no hash is given); without one, the first hint."""

    def __init__(self, rubric: Rubric, hint_key: str | None, state: HintState | None, source: str | None = None):
        self.state = state if hint_key is not None else None
        self.key = f"{rubric.assignment_id}:{hint_key}"
        self.source = source

    def reveal(self, check: RubricCheck, finding: str | None, headline: str | None) -> str | None:
        """The hint this check shows now, recorded as shown: only hints about what the check found
        (its feedback's finding) and, where a hint names bugs, about the headline's are in the sequence."""
        hints = check.hints_for(finding, headline)
        if not hints:
            return None
        if self.state is None:
            index = 0
        else:
            progress = self.state.revealed.get(self.key, {}).get(check.id)
            unread = [i for i, h in enumerate(hints) if progress is None or h not in progress.seen]
            if progress is not None and self.source is not None and progress.source == self.source \
                    and progress.seen[-1] in hints:
                index = hints.index(progress.seen[-1])  # the same code: the same hint
            else:  # the next unread hint about what this check finds now; all read: the last
                index = unread[0] if unread else len(hints) - 1
            # The state changes only where a hint is revealed: its caller saves only then.
            if progress is None:
                self.state.revealed.setdefault(self.key, {})[check.id] = HintProgress(seen=[hints[index]],
                                                                                      source=self.source)
            else:
                if hints[index] not in progress.seen:
                    progress.seen.append(hints[index])
                progress.source = self.source
        if len(hints) == 1:
            return f"Hint: {hints[0]}"
        return f"Hint {index + 1} of {len(hints)}: {hints[index]}"
