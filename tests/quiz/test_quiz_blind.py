"""Agreement on the blind set: answers and labels written from the chapter and the questions alone, by
someone who never read the judge or its rubrics, frozen before any tuning (issue 26).

Run with `pytest tests/quiz/test_quiz_blind.py -s` to see the numbers; make accuracy reports them too.
"""

from pathlib import Path

import pytest

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
    # (127/128 three ways, 128/128 correct-or-not, after tuning on both blind sets: see docs/accuracy.md for what
    # is blind; 122/128 and 124/128 before the tuning on the second set).
    assert result.agree >= 127
    assert result.binary >= 128
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


# Written the same way while the judge was tuned on blind4, frozen (committed) before it was first run. Its blind
# measure: 136/153 = 88.9% three ways (correct-or-not 143/153, one incorrect answer judged correct, 1 undetermined)
# on the judge after the blind4 tuning; 133/153 (3 false praise) before it. On 2026-12-02 it became a tuning set (its
# disagreements read and fixed by class, tests/quiz/test_quiz_fifth_set_classes.py); its floors are what the judge
# reaches on it now (150/153, correct-or-not 153/153), which is no blind estimate.
# Its three disagreements left are labels the other tables contradict or an undetermined verdict (docs/quiz.md).
def test_the_fifth_set_now_a_tuning_set():
    result = blind_agreement(QUIZ, BLIND.with_name("quiz_blind5_answers.yaml"))
    print("\n" + "\n".join(result.lines("quiz_blind5_answers.yaml (a tuning set)")))
    assert result.n >= 150
    assert result.agree >= 150 and result.binary >= 153
    assert not [m for m in result.misses if m[2] == "correct"]  # no wrong or partial answer judged correct
    assert result.undetermined / result.n <= 0.05


# Written the same way while the judge was tuned on blind5, frozen (committed) before it was first run; a second
# labeller agreed on 56/56 of a sample. Its blind measure, taken once on the judge after the blind5 tuning:
# 138/166 = 83.1% three ways, correct-or-not 152/166, five incorrect answers judged correct, 1 undetermined. On
# 2026-12-02 it became a tuning set (its disagreements read and fixed by class, tests/quiz/test_quiz_sixth_set_classes.py);
# its floors are what the judge reaches on it now (164/166, correct-or-not 165/166), which is no blind estimate. Its two disagreements left are labels other tables contradict (docs/quiz.md): the one
# answer judged correct against a partial label is blind2's answer of the same words, labelled correct there.
BLIND6_LABEL_CONFLICT = "the target is the next token so looking at yourself isnt cheating"


def test_the_sixth_set_now_a_tuning_set():
    result = blind_agreement(QUIZ, BLIND.with_name("quiz_blind6_answers.yaml"))
    print("\n" + "\n".join(result.lines("quiz_blind6_answers.yaml (a tuning set)")))
    assert result.n == 166
    assert result.agree >= 164 and result.binary >= 165
    # No wrong or partial answer judged correct but the one whose label blind2 contradicts.
    assert [m[3] for m in result.misses if m[2] == "correct"] in ([], [BLIND6_LABEL_CONFLICT])
    assert result.undetermined / result.n <= 0.05


# Written the same way while the judge was tuned on blind6, frozen (committed) before it was first run; a second
# labeller agreed on 56/56 of a sample. Its blind measure, taken once on the judge after the blind6 tuning:
# 143/168 = 85.1% three ways, correct-or-not 152/168, three incorrect answers judged correct, 1 undetermined. On
# 2026-12-02 it became a tuning set (its disagreements read and fixed by class, tests/quiz/test_quiz_seventh_set_classes.py);
# its floors are what the judge reaches on it now (158/168, correct-or-not 161/168), which is no blind estimate:
# blind8, once measured, is. The one answer judged correct against a partial label is nearly blind4's answer
# "known already at time of prediction of the next token", labelled correct there (docs/quiz.md).
BLIND7_LABEL_CONFLICT = "The current token is already known when you predict the next one, so it is fair to use it."


def test_the_seventh_set_now_a_tuning_set():
    result = blind_agreement(QUIZ, BLIND.with_name("quiz_blind7_answers.yaml"))
    print("\n" + "\n".join(result.lines("quiz_blind7_answers.yaml (a tuning set)")))
    assert result.n == 168
    assert result.agree >= 158 and result.binary >= 161
    # No wrong or partial answer judged correct but the one whose label blind4 contradicts.
    assert [m[3] for m in result.misses if m[2] == "correct"] in ([], [BLIND7_LABEL_CONFLICT])
    assert result.undetermined / result.n <= 0.05


# Written the same way while the judge was tuned on blind7, frozen (committed) before it was first run; a second
# labeller agreed on 52/55 of a sample. Its blind measure, taken once on the judge after the blind7 tuning:
# 142/165 = 86.1% three ways, correct-or-not 155/165, four incorrect answers judged correct, 2 undetermined. On
# 2026-12-02 it became a tuning set (its disagreements read and fixed by class, tests/quiz/test_quiz_eighth_set_classes.py);
# its floors are what the judge reaches on it now (161/165, correct-or-not 164/165), which is no blind estimate:
# blind9, once measured, is. The one answer judged correct against a partial label lacks only the first-row point,
# which this labeller counts as required and every other table as optional (docs/quiz.md).
BLIND8_LABEL_CONFLICT = ("At position i we try to predict token i+1. Token i is part of the prefix we already have, so "
                         "j=i is past/present not future. (I guess masking it would be over-strict?)")


def test_the_eighth_set_now_a_tuning_set():
    result = blind_agreement(QUIZ, BLIND.with_name("quiz_blind8_answers.yaml"))
    print("\n" + "\n".join(result.lines("quiz_blind8_answers.yaml (a tuning set)")))
    assert result.n == 165
    assert result.agree >= 161 and result.binary >= 164
    # No wrong or partial answer judged correct but the one whose label the other tables contradict.
    assert [m[3] for m in result.misses if m[2] == "correct"] in ([], [BLIND8_LABEL_CONFLICT])
    assert result.undetermined / result.n <= 0.05


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8, 9, 10])
def test_second_labeller_on_a_later_blind_set(n):
    agree, sampled = second_labeller(BLIND.with_name(f"quiz_blind{n}_answers.yaml"),
                                     BLIND.with_name(f"quiz_blind{n}_second_labels.yaml"))
    print(f"\nsecond labeller (blind{n}): {agree}/{sampled} agree with the first")
    assert sampled >= 40
    assert agree / sampled >= 0.9


def test_second_labeller_agrees_with_the_first():
    agree, n = second_labeller(BLIND, SECOND)
    print(f"\nsecond labeller: {agree}/{n} agree with the first")
    assert n >= 40
    assert agree / n >= 0.9


# Each labelled set measured against floors: (file, three-way floor, correct-or-not floor), both counts of answers.
# A new set is one more row here: its file in tests/quiz and the counts `bench/quiz_agreement.py FILE` measured.
# quiz_blind2_answers.yaml: written after the tuning on quiz_blind_answers.yaml had ended. Its blind measure, before
# its disagreements were read: 94/112 = 83.9% three ways (correct-or-not 104/112, no false praise, none
# undetermined). On 2026-12-01 it became a tuning set; its floors are what the judge reaches on it now (110/112).
SETS = [
    ("quiz_blind2_answers.yaml", 110, 111),
    # Written by a helper who read only the chapter and the questions while the judge was tuned on blind2, frozen
    # (committed) before it was first run. Its blind measure: 79.6% three ways on the judge before that tuning,
    # 121/142 = 85.2% after it (correct-or-not 132/142, no false praise, 4 undetermined). On 2026-12-02 it became a
    # tuning set (its disagreements read and fixed by class, tests/quiz/test_quiz_error_classes.py); its floors are
    # what the judge reaches on it now (142/142), which is no blind estimate.
    ("quiz_blind3_answers.yaml", 142, 142),
    # Written the same way while the judge was tuned on blind3, frozen before it was first run. Its blind measure:
    # 140/161 = 87.0% three ways (correct-or-not 151/161, one false praise, 1 undetermined); 84.5% on the judge
    # before the blind3 tuning. On 2026-12-02 it became a tuning set (fixed by class, the fourth-set section of
    # tests/quiz/test_quiz_error_classes.py); its floors are what the judge reaches on it now (161/161).
    ("quiz_blind4_answers.yaml", 161, 161),
]


@pytest.mark.parametrize("name,agree,binary", SETS)
def test_labelled_set_agreement(name, agree, binary):
    result = blind_agreement(QUIZ, BLIND.with_name(name))
    print("\n" + "\n".join(result.lines(name)))
    for index, label, verdict, answer in result.misses:
        print(f"  #{index} {label} -> {verdict}: {answer}")
    assert result.n >= 100
    assert result.agree >= agree and result.binary >= binary
    assert not [m for m in result.misses if m[2] == "correct"]  # no wrong or partial answer judged correct
    assert result.undetermined / result.n <= 0.05


# Written the same way while the judge was tuned on blind8, frozen (committed) before it was first run; a second
# labeller agreed on 59/59 of a sample. Its blind measure, taken once on the judge after the blind8 tuning:
# 154/176 = 87.5% three ways, correct-or-not 162/176, five wrong or partial answers judged correct, 1 undetermined.
# The floors hold that measure (issue 26's targets, 90% and no false praise, are not met by it). After it, walking a
# learner through the quiz with its answers found one true sentence flagged wrong ("sums < 1": a comparison symbol
# was not read); fixed, it reads 155/176, which is no longer blind for that one answer.
# Written the same way (2026-12-02 16:37 UTC) while the judge was tuned on a tuning set written to be hard
# (tests/quiz/quiz_tune10_answers.yaml; blind9 was not tuned on), frozen (committed) before it was first run; a
# second labeller agreed on 59/59 of a sample. Its blind measure, taken once at 18:10 UTC on main 98bc3ab: 156/176 =
# 88.6% three ways, correct-or-not 162/176, four wrong or partial answers judged correct, 1 undetermined. Three of the
# four are diagonal answers that give only the target-is-next reason, which this writer (like blind8's and blind9's)
# labels partial and blind1..7's writers label correct (docs/quiz.md); the fourth ("the value size also changes the
# weights") is a wrong claim the judge missed. The floors hold that measure: 90% and no false praise are not met.
# Each set measured once, blind: (file's number, answers, three-way floor, correct-or-not floor, false praise at most).
MEASURED_ONCE = [(9, 176, 154, 162, 5), (10, 176, 156, 162, 4)]


@pytest.mark.parametrize("n,answers,agree,binary,praised", MEASURED_ONCE)
def test_a_blind_set_as_measured(n, answers, agree, binary, praised):
    result = blind_agreement(QUIZ, BLIND.with_name(f"quiz_blind{n}_answers.yaml"))
    print("\n" + "\n".join(result.lines(f"quiz_blind{n}_answers.yaml (blind)")))
    assert result.n == answers
    assert result.agree >= agree and result.binary >= binary
    assert len([m for m in result.misses if m[2] == "correct"]) <= praised
    assert result.undetermined / result.n <= 0.05
