"""Agreement between the judge and a teacher, on three tables; docs/quiz.md states these numbers.

- quiz_answer_table.yaml: the tuning table the rubric phrasings were written against (right / wrong).
- quiz_heldout_answers.yaml: written here before the first rubric phrasings, never tuned on (right / wrong).
- quiz_modelled_answers.yaml: 161 answers written here, each modelling the kind of answer a cited public
  page gives (its points made and missed, its claim, its form), every sentence our own; labelled correct /
  partial / incorrect by a teacher and frozen. It replaced an earlier table of public answers (issue 21).

Run with `pytest tests/quiz/test_quiz_agreement.py -s` to see the numbers.
"""

from collections import Counter
from pathlib import Path

import pytest
import yaml

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

HERE = Path(__file__).resolve().parent
QUIZ = load_quiz(DEFAULT_QUIZ)


def right_wrong(table: dict) -> dict[str, tuple[int, int]]:
    """right: judged correct; wrong: judged anything but correct. (agreeing, total) for each."""
    counts = {"right": [0, 0], "wrong": [0, 0]}
    for iid, rows in table.items():
        for kind in ("right", "wrong"):
            for text in rows[kind]:
                correct = judge(QUIZ.item(iid), text).verdict == "correct"
                counts[kind][0] += correct == (kind == "right")
                counts[kind][1] += 1
    return {k: (a, n) for k, (a, n) in counts.items()}


def modelled() -> list[tuple[dict, str]]:
    rows = yaml.safe_load((HERE / "quiz_modelled_answers.yaml").read_text(encoding="utf-8"))["answers"]
    return [(row, judge(QUIZ.item(row["item"]), row["answer"]).verdict) for row in rows]


@pytest.mark.parametrize("name,floor", [("quiz_answer_table.yaml", 70), ("quiz_heldout_answers.yaml", 36)])
def test_right_wrong_tables_agree_fully(name, floor):
    result = right_wrong(yaml.safe_load((HERE / name).read_text(encoding="utf-8")))
    (r, rn), (w, wn) = result["right"], result["wrong"]
    print(f"\n{name}: {r + w}/{rn + wn} agree (right judged correct {r}/{rn}, wrong not judged correct {w}/{wn})")
    assert rn + wn >= floor
    assert (r, w) == (rn, wn)


def test_modelled_table_agreement():
    judged = modelled()
    agree = sum(verdict == row["verdict"] for row, verdict in judged)
    by_item = Counter(row["item"] for row, _ in judged)
    ok_item = Counter(row["item"] for row, verdict in judged if verdict == row["verdict"])
    confusion = Counter((row["verdict"], verdict) for row, verdict in judged if verdict != row["verdict"])
    binary = sum((verdict == "correct") == (row["verdict"] == "correct") for row, verdict in judged)
    print(f"\nquiz_modelled_answers.yaml: {agree}/{len(judged)} = {agree / len(judged):.1%} exact verdicts; "
          f"correct-or-not {binary}/{len(judged)} = {binary / len(judged):.1%}")
    print("  by item: " + ", ".join(f"{k} {ok_item[k]}/{n}" for k, n in by_item.items()))
    print("  disagreements (teacher -> judge): " + ", ".join(f"{a}->{b} x{n}" for (a, b), n in confusion.items()))
    assert len(judged) >= 150
    # Floors at what the judge measured when this table was written (2026-12-01), never below: the
    # 95% of the quoted table it replaced was reached by tuning on that table's disagreements. Each of
    # the 17 disagreements here was read; in all of them a teacher keeps the table's verdict.
    # Raised to 147 after the tuning on the second blind set (2026-12-01): this table was run to check that its
    # agreement did not fall and its disagreements were read; the gain came from general mechanisms (positions
    # as indices, contrast scope, sums and causality called different), not from a phrasing for one of its answers.
    # Raised to 148 and 156 after the tuning on the third blind set (2026-12-02), measured the same way: the gain is a
    # target's name inside an expression read as no label ("weights @ V = (2.67, 2)"), a general mechanism.
    # Raised to 149 after the tuning on the fifth blind set (2026-12-02), measured the same way: the gain is the earlier
    # rows said "equal" or "bit for bit" after an edit read as the intervention, a general phrasing of the point.
    assert agree >= 149
    assert binary >= 156


def test_no_modelled_wrong_claim_judged_correct():
    wrong = [row for row, verdict in modelled() if row.get("wrong_claim") and verdict == "correct"]
    assert len([row for row, _ in modelled() if row.get("wrong_claim")]) >= 30
    assert not wrong, [row["answer"] for row in wrong]


def test_no_modelled_incorrect_answer_judged_correct():
    # Stronger than the wrong claims alone: nothing a teacher marks incorrect may pass as correct.
    passed = [row for row, verdict in modelled() if row["verdict"] == "incorrect" and verdict == "correct"]
    assert not passed, [row["answer"] for row in passed]
