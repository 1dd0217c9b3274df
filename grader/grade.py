"""One submission, end to end: probes -> sandbox -> observations -> checks -> diagnosis -> rubric -> report.

The grader process holds the rubric, the secret and every expected value; student code runs only in
the sandbox, and only tensors come back.
"""

from __future__ import annotations

import ast
import atexit
import functools
import hashlib
import importlib.util
import logging
import os
import tempfile
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from importlib.resources.abc import Traversable
from pathlib import Path

from grader.checks.base import CheckOutcome
from grader.checks.observations import Observations
from grader.checks.registry import CHECKS
from grader.diagnosis import catalogue as catalogue_data
from grader.diagnosis.catalogue import Catalogue
from grader.diagnosis.engine import diagnose
from grader.paths import INSTRUCTOR_RUBRIC
from grader.probes import ProbeSet, build_probes, hidden_seed, self_check_variants
from grader.probes.replies import Reply
from grader.report.models import Report, Runtime
from grader.report.visuals import visuals
from grader.rubric import Rubric, hint_state, load_rubric, load_self_check, score_checks
from grader.rubric.score import give_hints
from grader.sandbox import RunResult, Sandbox
from grader.vocabulary import NOT_RUN, UNREADABLE

MAX_SOURCE_BYTES = 1 << 20
log = logging.getLogger(__name__)


@functools.cache
def default_rubric(path: Traversable) -> Rubric:
    return load_rubric(path)  # rubrics are frozen models: one load serves every submission


def observations(run: RunResult, probes: ProbeSet, source: str, rubric: Rubric) -> Observations:
    # What must be defined follows from the rubric's checks; what is forbidden, from the forbidden_api check.
    return Observations.from_run(run, probes, source, required=rubric.entry_points, forbidden=Observations.forbidden,
                                 scored=tuple(rubric.check_ids))


def _evaluate(check_id: str, obs: Observations, rubric: Rubric) -> CheckOutcome:
    if obs.load_error is not None:
        e = obs.load_error
        return CheckOutcome("error", 0, 1, f"{NOT_RUN}{e.error_type}: {e.error}")
    needs = CHECKS[check_id].needs
    if needs in obs.required and needs not in obs.load_names:
        return CheckOutcome("error", 0, 1, f"The submission does not define {needs}.")
    try:
        return CHECKS[check_id].run(obs, lambda dtype: rubric.tolerance(check_id, dtype))
    except Exception as exc:  # noqa: BLE001 - a malformed reply only makes its own check error
        # The report says so in the check's own row; the log tells whoever runs the grader why.
        log.warning("check %s could not read the replies: %r", check_id, exc)
        return CheckOutcome("error", 0, 1, f"The submission's results for this check were malformed ({exc}).")


def check_outcomes(obs: Observations, rubric: Rubric) -> dict[str, CheckOutcome]:
    """Every check the rubric scores, judged on the observations (each under its own guard)."""
    return {cid: _evaluate(cid, obs, rubric) for cid in rubric.check_ids}


def points_lost(rubric: Rubric, checks) -> dict[str, float]:
    """Points lost per check, a skipped check's counted on the prerequisite that blocked it."""
    status = {c.id: c.status for c in checks}

    def owner(cid: str, seen: frozenset = frozenset()) -> str:
        blocker = next((p for p in rubric.check(cid).requires if status.get(p) != "passed"), None)
        if status[cid] != "skipped" or blocker not in status or blocker in seen:
            return cid
        return owner(blocker, seen | {cid})

    lost = {c.id: 0.0 for c in checks}
    for c in checks:
        lost[owner(c.id)] += c.max_score - c.score
    return lost


@dataclass
class Executed:
    """What running one file in the sandbox produced; judging it needs no sandbox."""

    path: Path
    probes: ProbeSet
    run: RunResult
    source: str
    unreadable: str | None = None


def code_shape(source: str) -> str:
    """The source as Python sees it: its syntax tree, without comments or layout (the text itself
    when it does not parse, where any edit is a change)."""
    try:
        return ast.dump(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return source


def python_text(source: bytes) -> str:
    """The text Python will run: decoded by its coding line (PEP 263) and BOM, as the import
    does, so the static checks read what executes. Undecodable source fails to import anyway."""
    try:
        return importlib.util.decode_source(source)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return source.decode("utf-8", "replace")


def execute(path: Path, *, sandbox: Sandbox, rubric: Rubric, secret: str | None, audience: str,
            hidden_paths: Iterable[Path] = ()) -> Executed:
    try:
        source = path.read_bytes()[:MAX_SOURCE_BYTES]
    except OSError as exc:
        return unread(path, sandbox, str(exc))
    hidden = audience == "instructor" and any(c.visibility != "visible" for c in rubric.checks)
    probes = build_probes(hidden_seed(secret or "", source) if hidden else None)
    if not hidden:  # a self-check: variants drawn from the file itself stand in for the secret's probes
        probes = ProbeSet([*probes.probes, *self_check_variants(source)])
    limits = rubric.limits.sandbox_limits(sandbox.limits) if rubric.limits else None
    run = sandbox.run(path, probes.calls(), hidden_paths=list(hidden_paths), limits=limits)
    return Executed(path, probes, run, python_text(source))


def unread(path: Path, sandbox: Sandbox, reason: str) -> Executed:
    """A file nothing was run for: every check says why it could not be read."""
    run = RunResult(load=None, replies={}, failures={}, failure=None, output="", isolation=sandbox.isolation,
                    wall_s=0.0)
    return Executed(path, build_probes(None), run, "", unreadable=reason)


def judge(executed: Executed, *, rubric: Rubric, audience: str, catalogue: Catalogue | None = None,
          hint_state_path: Path | None = None, hint_key: str | None = None, spelled_out: int | None = None) -> Report:
    """Checks, diagnosis, scoring and pictures, all from the returned tensors, under one guard:
    whatever fails in here becomes this file's `grader_error` report, and a class run goes on."""
    try:
        return _judge(executed, rubric=rubric, audience=audience, catalogue=catalogue,
                      hint_state_path=hint_state_path, hint_key=hint_key, spelled_out=spelled_out)
    except Exception as exc:  # noqa: BLE001 - one file's failure is that file's report, never the batch's end
        where = traceback.extract_tb(exc.__traceback__)[-1]
        reason = f"{type(exc).__name__} in {Path(where.filename).name}:{where.lineno}: {exc}"[:500]
        from grader.report.view import printable

        log.warning("could not judge %s: %s", printable(str(executed.path)), printable(reason))
        return error_report(executed, rubric=rubric, audience=audience, reason=reason)


def error_report(executed: Executed, *, rubric: Rubric, audience: str, reason: str) -> Report:
    """Every check an error with the same reason, no points, no pictures, no diagnosis."""
    outcome = CheckOutcome("error", 0, 1, f"The grader failed on this file and could not judge it ({reason}).")
    try:
        scored = score_checks(rubric, dict.fromkeys(rubric.check_ids, outcome), audience=audience)
        checks, groups, max_score = scored.checks, scored.groups, scored.max_score
    except Exception:  # noqa: BLE001 - even scoring failed: an empty report still names the file and why
        checks, groups, max_score = [], [], 0.0
    run = executed.run
    return Report(
        submission=str(executed.path), status="grader_error", error=reason, score=0.0, max_score=max_score,
        checks=checks, groups=groups,
        runtime=Runtime(isolation=run.isolation, wall_s=round(run.wall_s, 3), output=run.output),
    )


def _judge(executed: Executed, *, rubric: Rubric, audience: str, catalogue: Catalogue | None,
           hint_state_path: Path | None, hint_key: str | None, spelled_out: int | None = None) -> Report:
    obs = observations(executed.run, executed.probes, executed.source, rubric)
    if executed.unreadable:
        obs.load_error = Reply(False, error_type=UNREADABLE, error=f"cannot read the file: {executed.unreadable}")
    outcomes = check_outcomes(obs, rubric)
    key = hashlib.sha256((hint_key or str(executed.path.resolve())).encode()).hexdigest()[:16]
    # Hints advance when the code changed and the check still fails, not on every rerun, nor on a
    # save that only touched comments or layout (under --watch every save is a rerun). Only a
    # self-check keeps hint state; a class run does not parse for it.
    code = hashlib.sha256(code_shape(executed.source).encode()).hexdigest()[:16] if hint_state_path else None
    scored = score_checks(rubric, outcomes, audience=audience)
    diagnoses = diagnose(obs, outcomes, catalogue or catalogue_data.load(), lost=points_lost(rubric, scored.checks))
    # Hints after the diagnosis: a hint that names a bug is for the one the headline names.
    # Scoring is pure: the hint state is read here and written back only when a hint advanced.
    state = hint_state.load(hint_state_path) if hint_state_path else None
    before = state.model_copy(deep=True) if state is not None else None
    scored = give_hints(rubric, scored, outcomes, hint_key=key, hint_state=state, hint_source=code,
                        headline=diagnoses[0].id if diagnoses else None, spelled_out=spelled_out)
    if state is not None and state != before:
        hint_state.save(hint_state_path, state)
    run = executed.run
    return Report(
        submission=str(executed.path), score=scored.score, max_score=scored.max_score, checks=scored.checks,
        groups=scored.groups, diagnoses=diagnoses,
        runtime=Runtime(isolation=run.isolation, wall_s=round(run.wall_s, 3), output=run.output),
        visuals=visuals(obs),
    )


def grade_file(path: Path, *, sandbox: Sandbox, rubric: Rubric | None = None, secret: str | None = None,
               audience: str = "instructor", catalogue: Catalogue | None = None,
               hint_state_path: Path | None = None, hint_key: str | None = None,
               hidden_paths: Iterable[Path] = (), spelled_out: int | None = None) -> Report:
    """Grade one file. Never raises for anything the file does."""
    rubric = rubric or (default_rubric(INSTRUCTOR_RUBRIC) if audience == "instructor" else load_self_check())
    executed = execute(Path(path), sandbox=sandbox, rubric=rubric, secret=secret, audience=audience,
                       hidden_paths=hidden_paths)
    return judge(executed, rubric=rubric, audience=audience, catalogue=catalogue,
                 hint_state_path=hint_state_path, hint_key=hint_key, spelled_out=spelled_out)


_shared: Sandbox | None = None


def shared_sandbox() -> Sandbox:
    """One warm sandbox per process, for interactive use (notebooks, repeated self-checks).

    Quiet: on a student's own machine there is nothing to protect from their code, so the isolation
    level is one line of the report, not the instructor's warning."""
    global _shared
    if _shared is None:
        sandbox = Sandbox(quiet=True)
        sandbox.start()  # kept only once started: a failed start is retried by the next call
        _shared = sandbox
        atexit.register(_shared.close)
    return _shared


def self_check(path: Path, *, sandbox: Sandbox | None = None, hint_state_path: Path | None = None,
               hint_key: str | None = None, spelled_out: int | None = None) -> Report:
    """What a student runs: visible checks on public probes, nothing hidden.

    `hint_key` names the work across runs (default: the file's path); a failing check's next hint
    comes when that work's code changed and still fails, and is spent only when shown: `spelled_out`
    says how many failing checks the reader sees spelled out (the terminal's screenful, costliest
    first; None: every one, as --html, --markdown and a notebook show them). A notebook (.ipynb) or a script exported
    from one is graded as the class run grades it (`intake.notebook`): what it defines, without the
    cells that try it out, so its own `check(SingleHead)` cell is not run inside the sandbox.
    """
    path = Path(path)
    kwargs = dict(sandbox=sandbox or shared_sandbox(), audience="student", rubric=load_self_check(),
                  hint_state_path=hint_state_path, hint_key=hint_key or str(path.resolve()), spelled_out=spelled_out)
    from grader.intake.bounds import Unreadable

    try:  # what intake would refuse in a class run is not run here either: the student is told why
        script = notebook_script(path)
    except Unreadable as exc:
        executed = unread(path, kwargs.pop("sandbox"), str(exc))
        return judge(executed, **{k: kwargs[k] for k in ("rubric", "audience", "hint_state_path", "hint_key",
                                                          "spelled_out")})
    if script is None:
        return grade_file(path, **kwargs)
    with tempfile.TemporaryDirectory(prefix="grader-notebook-") as tmp:
        graded = Path(tmp) / "attention.py"
        graded.write_text(script, encoding="utf-8")
        report = grade_file(graded, **kwargs)
    return report.model_copy(update={"submission": str(path)})


def notebook_script(path: Path) -> str | None:
    """The script a notebook, or a script exported from one, is graded as; None for a plain file.
    `Unreadable` (intake's bounds) for a notebook, or a plain file, that intake would not read."""
    from grader.intake import bounds, notebook
    from grader.intake.files import MAX_NOTEBOOK_BYTES, Refused, read_file

    try:
        data = read_file(path, MAX_NOTEBOOK_BYTES).data
    except Refused:
        return None  # grading the file itself says why it cannot be read
    if path.suffix == ".ipynb":
        return bounds.reading("this notebook", lambda: notebook.notebook_to_script(data).script)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if notebook.is_exported_notebook(text):
        return bounds.reading("this notebook", lambda: notebook.exported_to_script(text).script)
    try:
        bounds.parse_python(text)
    except SyntaxError:
        pass  # the file's own: the sandbox reports it with its line
    return None


def secret_from_env(rubric: Rubric) -> str | None:
    return os.environ.get(rubric.secret_env) or None

