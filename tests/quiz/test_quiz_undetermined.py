"""Issue 26, class 4: when an answer talks about a required point but the judge cannot tell what it says of
it, the verdict is `undetermined`: it says what it could not decide and asks one question, never a confident ✗."""

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz
from grader.schemas import path_of

QUIZ = load_quiz(DEFAULT_QUIZ)
ROOT = Path(__file__).resolve().parents[2]
# The weights and what happens to them, too far apart to be read as one claim (or its denial).
FAR = "The weights, computed from queries and keys that we kept fixed, stay."


def test_far_apart_claim_is_undetermined_with_one_question():
    res = judge(QUIZ.item("value-change"), FAR)
    point = next(k for k in QUIZ.item("value-change").key_points if k.id == "weights-unchanged")
    assert res.verdict == "undetermined" and res.score == 0
    assert res.question == point.follow_up
    assert res.feedback.startswith("? Could not tell whether your answer says this: " + point.text), res.feedback
    assert "✗ " + point.feedback not in res.feedback


@pytest.mark.parametrize("item_id,text,verdict", [
    ("value-change", "The weights change.", "incorrect"),  # a claim it can read: wrong, confidently
    ("value-change", "The output goes up a lot.", "incorrect"),  # nothing about the weights at all
    ("value-change", "The weights stay the same.", "partial"),  # read as said
    ("row-sums-vs-causality", "Row sums are fine.", "incorrect"),
])
def test_readable_answers_keep_a_confident_verdict(item_id, text, verdict):
    res = judge(QUIZ.item(item_id), text)
    assert res.verdict == verdict and res.question is None, res.feedback


def test_undecided_point_in_a_partial_answer_is_asked_not_marked():
    res = judge(QUIZ.item("value-change"), FAR.removesuffix(".") + "; the output rises by 1.")
    assert res.verdict == "partial" and res.question is not None
    assert any(line.startswith("? Could not tell") for line in res.feedback.splitlines())


def test_undetermined_in_json_matches_the_published_schema(tmp_path):
    answers = tmp_path / "a.yaml"
    answers.write_text(f"value-change: {FAR}\nsoftmax-axis: A\n")
    proc = subprocess.run([sys.executable, "-m", "grader", "quiz", "check", str(answers), "--json"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    jsonschema.validate(out, json.loads(path_of("quiz-check").read_text()))
    row = next(i for i in out["items"] if i["id"] == "value-change")
    assert row["verdict"] == "undetermined" and row["question"].startswith("Which inputs")
    # The question is not answered for the learner in the same breath.
    assert QUIZ.item("value-change").explanation not in row["feedback"]


def test_session_asks_the_undecided_question(tmp_path):
    from grader.quiz.session import run_session

    prompts: list[str] = []
    replies = iter([FAR, "queries and keys, and neither changed", ":q"])
    quiz = QUIZ.model_copy(update={"items": [QUIZ.item("value-change")]})
    run_session(quiz, tmp_path / "s.json", ask=lambda p: (prompts.append(p), next(replies))[1], say=lambda _: None)
    assert any(p.startswith("Follow-up: Which inputs are the attention weights computed from") for p in prompts)
