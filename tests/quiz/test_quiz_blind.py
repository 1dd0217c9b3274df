"""Agreement on the blind set: answers and labels written from the chapter and the questions alone, by
someone who never read the judge or its rubrics, frozen before any tuning (issue 26).

Run with `pytest tests/quiz/test_quiz_blind.py -s` to see the numbers; make accuracy reports them too.
"""

from pathlib import Path

from grader.quiz.agreement import blind_agreement, follow_up_agreement, second_labeller
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)
BLIND = Path(__file__).resolve().parent / "quiz_blind_answers.yaml"
SECOND = BLIND.with_name("quiz_blind_second_labels.yaml")


def test_blind_set_agreement():
    result = blind_agreement(QUIZ, BLIND)
    print("\n" + "\n".join(result.lines("quiz_blind_answers.yaml")))
    for index, label, verdict, answer in result.misses:
        print(f"  #{index} {label} -> {verdict}: {answer}")
    assert result.n >= 100
    # Issue 26's targets: at least 90% three ways, at most 5% undetermined. Floors at what was reached
    # (122/128 three ways, 124/128 correct-or-not, after tuning: see docs/accuracy.md for what is blind).
    assert result.agree / result.n >= 0.95
    assert result.binary / result.n >= 0.96
    assert result.undetermined / result.n <= 0.05


def test_no_blind_wrong_or_partial_answer_judged_correct():
    result = blind_agreement(QUIZ, BLIND)
    praised = [(i, label, answer) for i, label, verdict, answer in result.misses if verdict == "correct"]
    assert not praised, praised


def test_blind_follow_up_replies():
    result = follow_up_agreement(QUIZ, BLIND)
    print("\n" + "\n".join(result.lines("quiz_blind_answers.yaml follow-ups")))
    assert result.n >= 25
    assert result.agree == result.n, result.misses


def test_second_labeller_agrees_with_the_first():
    agree, n = second_labeller(BLIND, SECOND)
    print(f"\nsecond labeller: {agree}/{n} agree with the first")
    assert n >= 40
    assert agree / n >= 0.9


BLIND2 = BLIND.with_name("quiz_blind2_answers.yaml")


def test_second_blind_set_tuned_on_since_its_blind_measure():
    """A set written after the tuning on quiz_blind_answers.yaml had ended. Its blind measure, before its
    disagreements were read: 94/112 = 83.9% three ways (correct-or-not 104/112, no false praise, none
    undetermined). On 2026-12-01 it became a tuning set; the floors are what the judge reaches on it now."""
    result = blind_agreement(QUIZ, BLIND2)
    print("\n" + "\n".join(result.lines("quiz_blind2_answers.yaml (blind measure 94/112, tuned on since)")))
    assert result.n >= 100
    assert result.agree >= 94 and result.binary >= 104
    assert not [m for m in result.misses if m[2] == "correct"]  # no wrong or partial answer judged correct
    assert result.undetermined / result.n <= 0.05
