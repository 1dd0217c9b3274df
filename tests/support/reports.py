"""Hand-built Reports the renderer tests share: one correct submission, one zero-fill-mask submission.

Run as a script to regenerate the README picture: python tests/support/reports.py docs/heatmap.png
"""

from __future__ import annotations

import math
import sys

from grader.report.models import (
    CheckReport,
    Diagnosis,
    GroupTotal,
    Heatmap,
    Report,
    Runtime,
    Visuals,
)

HIDE = "Hide future positions before normalization"

# The chapter's worked example: every query [1, 0], scores [0, ln 2, ln 4] in every row.
WORKED_SCORES = [0.0, math.log(2), math.log(4)]


def _softmax(scores: list[float]) -> list[float]:
    exps = [0.0 if s == -math.inf else math.exp(s) for s in scores]
    total = sum(exps)
    return [e / total for e in exps]


def causal_weights(scores: list[list[float]]) -> list[list[float]]:
    return [_softmax([s if j <= i else -math.inf for j, s in enumerate(row)]) for i, row in enumerate(scores)]


def zero_fill_weights(scores: list[list[float]]) -> list[list[float]]:
    """The chapter's broken mask: forbidden scores set to 0 instead of -inf."""
    return [_softmax([s if j <= i else 0.0 for j, s in enumerate(row)]) for i, row in enumerate(scores)]


WORKED = [WORKED_SCORES] * 3
# A fixed 5x5 score matrix standing in for a seeded random probe.
PROBE = [[0.3 * ((7 * i + 3 * j) % 5) - 0.6 for j in range(5)] for i in range(5)]


def _check(cid: str, title: str, group: str, ok: bool, points: float, **kw) -> CheckReport:
    return CheckReport(id=cid, title=title, group=group, status="passed" if ok else "failed",
                       score=points if ok else 0.0, max_score=points,
                       feedback=kw.pop("feedback", "Matches the chapter." if ok else "Does not match."),
                       cases_passed=1 if ok else 0, cases_total=1, **kw)


def passing_report() -> Report:
    checks = [
        _check("worked_example", "Worked example", "Worked example", True, 3.0),
        _check("mask_structure", "Causal mask structure", "Masking", True, 2.0),
        _check("leak_intervention", "No information from the future", "Masking", True, 3.0),
        _check("random_probes", "Random probes", "Numerics", True, 2.5),
    ]
    return Report(
        submission="alice.py", score=10.5, max_score=10.5, checks=checks,
        groups=[GroupTotal(name="Worked example", score=3.0, max_score=3.0),
                GroupTotal(name="Masking", score=5.0, max_score=5.0),
                GroupTotal(name="Numerics", score=2.5, max_score=2.5)],
        runtime=Runtime(isolation="namespaces+uid", wall_s=0.412, output=""),
        visuals=Visuals(
            worked_example=Heatmap(title="Worked example (T=3)", student=causal_weights(WORKED),
                                   expected=causal_weights(WORKED)),
            random_probe=Heatmap(title="Random probe (T=5, seed 0)", student=causal_weights(PROBE),
                                 expected=causal_weights(PROBE)),
            leak_row_change=[0.0, 0.0, 0.0, 0.0],
            unmasked_row_change=[1.2, 0.8, 2.1, 9.921041],
        ),
    )


# Student output is hostile text: markup, a script tag, backticks and pipes must all come out inert.
HOSTILE_OUTPUT = "debug <script>alert('x')</script> & ``` | ** [link](http://evil.example/)\n" * 3


def failing_report() -> Report:
    student_probe: list[list[float | None]] = [list(row) for row in zero_fill_weights(PROBE)]
    student_probe[4][3] = None  # NaN from an overflowing exp
    student_probe[4][4] = None
    checks = [
        _check("worked_example", "Worked example", "Worked example", False, 3.0,
               feedback="The first receiving position spreads its weights over all three sources.",
               expected="weights row 0: [1.000000, 0.000000, 0.000000]",
               observed="weights row 0: [0.333333, 0.333333, 0.333333]",
               section=HIDE, hint="Hint: Replace forbidden scores with -inf, not 0, before softmax."),
        _check("mask_structure", "Causal mask structure", "Masking", False, 2.0,
               feedback="Weights above the diagonal are not zero <b>not bold</b>.",
               expected="0 above the diagonal", observed="max 0.333333 at (0, 1)", section=HIDE),
        _check("leak_intervention", "No information from the future", "Masking", False, 3.0,
               feedback="Changing only the last key and value moved earlier output rows.",
               expected="max change 0.000000", observed="max change 1.234567", section="Part 3: prove the mask has teeth"),
        _check("random_probes", "Random probes", "Numerics", True, 2.5),
        CheckReport(id="hidden_probe", title="Hidden probe", group="Numerics", status="failed", score=0.0,
                    max_score=1.0, visibility="hidden", feedback="secret feedback", expected="secret exp",
                    observed="secret obs"),
    ]
    return Report(
        submission="bob <zero-fill>.py", score=2.5, max_score=11.5, checks=checks,
        groups=[GroupTotal(name="Worked example", score=0.0, max_score=3.0),
                GroupTotal(name="Masking", score=0.0, max_score=5.0),
                GroupTotal(name="Numerics", score=2.5, max_score=3.5)],
        diagnoses=[Diagnosis(id="zero_fill_mask", title="Zero instead of -inf in the mask",
                             message="exp(0) = 1, so a zero score still gives the future a positive share: "
                                     "the first position gets [0.333333, 0.333333, 0.333333].",
                             section=HIDE),
                   Diagnosis(id="mask_after_softmax", title="Mask applied after softmax",
                             message="Row sums would be [0.142857, 0.428571, 1.000000].",
                             section="Turn scores into shares")],
        runtime=Runtime(isolation="rlimits-only", wall_s=1.5, output=HOSTILE_OUTPUT),
        visuals=Visuals(
            worked_example=Heatmap(title="Worked example (T=3)", student=zero_fill_weights(WORKED),
                                   expected=causal_weights(WORKED)),
            random_probe=Heatmap(title="Random probe (T=5, seed 0)", student=student_probe,
                                 expected=causal_weights(PROBE)),
            leak_row_change=[0.61, 0.45, None, 0.12],
            unmasked_row_change=[1.2, 0.8, 2.1, 9.921041],
        ),
    )


if __name__ == "__main__":
    import base64
    from pathlib import Path

    from grader.report.plots import heatmap_png

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/heatmap.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(base64.b64decode(heatmap_png(failing_report().visuals.worked_example)))
    print(out)
