"""Agreement on held-out answers (written before the rubric phrasings, never used to tune them).

The README states these numbers; this test fails if the rubrics drift below them.
"""

from pathlib import Path

import yaml

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

HERE = Path(__file__).resolve().parent


def measure(table: dict) -> dict[str, tuple[int, int]]:
    quiz = load_quiz(DEFAULT_QUIZ)
    counts = {"right": [0, 0], "wrong": [0, 0]}
    for iid, rows in table.items():
        for kind in ("right", "wrong"):
            for text in rows[kind]:
                correct = judge(quiz.item(iid), text).verdict == "correct"
                counts[kind][0] += correct == (kind == "right")
                counts[kind][1] += 1
    return {k: (a, n) for k, (a, n) in counts.items()}


def test_heldout_agreement():
    result = measure(yaml.safe_load((HERE / "quiz_heldout_answers.yaml").read_text()))
    print(f"held-out agreement: right {result['right']}, wrong {result['wrong']}")
    assert result["right"][1] >= 18 and result["wrong"][1] >= 18
    # Measured at 18/18 and 18/18 when the README was written.
    assert result["right"][0] == result["right"][1]
    assert result["wrong"][0] == result["wrong"][1]
