"""Replaying the journey corpus: one student's evening through `check`, in order, one hint state.

Shared by tests/journey/test_journey.py and `make accuracy` (bench/accuracy.py), so both judge a
step the same way.
"""

from __future__ import annotations

import io
import tempfile
from pathlib import Path

import yaml
from rich.console import Console

from grader.grade import self_check
from grader.report.models import Report
from grader.report.terminal import DETAILS, render_terminal
from grader.report.view import needs_work

HERE = Path(__file__).parent
STEPS: list[dict] = yaml.safe_load((HERE / "expected.yaml").read_text(encoding="utf-8"))


def replay(home: Path | None = None, sandbox=None) -> dict[int, tuple[Report, str]]:
    """Every step graded in order: one file saved over and over, one hint state (one GRADER_DATA_DIR);
    each with what the terminal printed for it."""
    with tempfile.TemporaryDirectory(prefix="journey-") as tmp:
        home = home or Path(tmp)
        path, state = home / "attention.py", home / "data" / "hints.json"
        seen = {}
        for step in STEPS:
            path.write_text((HERE / f"step{step['step']:02d}.py").read_text(encoding="utf-8"), encoding="utf-8")
            report = self_check(path, sandbox=sandbox, hint_state_path=state, spelled_out=DETAILS["student"])
            buf = io.StringIO()
            render_terminal(report, console=Console(file=buf, width=120), audience="student")
            seen[step["step"]] = (report, buf.getvalue())
        return seen


def disagreements(step: dict, report: Report, out: str) -> list[str]:
    """How the report departs from the frozen expectation: headline, clean, phrases it must not say."""
    why = []
    headline = report.diagnoses[0].id if report.diagnoses else "none"
    if headline != step["headline"]:
        why.append(f"headline {headline}, expected {step['headline']}")
    if (not needs_work(report.checks) and headline == "none") != step["clean"]:
        why.append("clean" if step["clean"] else "not told it is clean")
    why += [f"says {p!r}" for p in step.get("must_not_say") or [] if p.lower() in out.lower()]
    return why
