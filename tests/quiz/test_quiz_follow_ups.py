"""Issue 26, class 3: a reply to a follow-up question is judged by that question's own rubric, and told
what that question was about, not the whole item's rubric line."""

import pytest

from grader.quiz.judge import follow_up_answered
from grader.quiz.load import DEFAULT_QUIZ, load_quiz
from grader.quiz.session import run_session

QUIZ = load_quiz(DEFAULT_QUIZ)


def _point(item_id: str, kid: str):
    return next(k for k in QUIZ.item(item_id).key_points if k.id == kid)


@pytest.mark.parametrize("item_id,kid,right,wrong", [
    ("scaling", "variance-grows", ["d_k", "dk, the variances add", "it's d_k, not sqrt(d_k)"],
     ["sqrt(d_k)", "the square root of d_k", "1"]),
    ("scaling", "softmax-saturates", ["nearly one-hot, and tiny gradients"],
     ["it flattens out and gradients grow", "more uniform"]),
    ("what-mixes", "values-mixed", ["the values", "V", "value vectors, not keys"], ["the keys", "the queries"]),
    ("what-mixes", "weights-from-queries-keys", ["q and k", "the key and the query, never the value"],
     ["keys and values", "query and value"]),
    ("diagonal", "own-token-known", ["yes", "yes, it is an input already", "it's known"],
     ["no", "no, it is masked", "it's hidden"]),
    ("row-sums-vs-causality", "sums-insufficient", ["one, and no, it is not causal", "1; it leaks the future"],
     ["1, so it is causal", "one"]),
    ("row-sums-vs-causality", "intervention", ["they stay the same", "they must not change", "no change at all"],
     ["they change a little", "they get renormalised"]),
    ("weights-vs-probabilities", "over-positions", ["positions", "per position, not per word"],
     ["per vocabulary word", "the vocabulary"]),
    ("weights-vs-probabilities", "over-vocabulary", ["the output layer; one per vocabulary token"],
     ["attention itself, one per position"]),
])
def test_follow_up_replies_judged_by_their_own_rubric(item_id, kid, right, wrong):
    point = _point(item_id, kid)
    for reply in right:
        assert follow_up_answered(point, reply, QUIZ.vocabulary), reply
    for reply in wrong:
        assert not follow_up_answered(point, reply, QUIZ.vocabulary), reply


def _session(item_id: str, replies: list[str], tmp_path) -> list[str]:
    said: list[str] = []
    lines = iter([*replies, ":q"])
    quiz = QUIZ.model_copy(update={"items": [QUIZ.item(item_id)]})
    run_session(quiz, tmp_path / "s.json", ask=lambda _: next(lines), say=said.append)
    return said


def test_session_credits_d_k_for_the_variance_question(tmp_path):
    # The case: "d_k" was marked ✗ with the main item's rubric text.
    said = _session("scaling", ["Otherwise softmax becomes too sharp and the gradients vanish.", "d_k"], tmp_path)
    assert any(s.strip().startswith("✓ The dot product's variance") for s in said), said


def test_session_wrong_follow_up_reply_is_told_about_its_own_question(tmp_path):
    said = _session("scaling", ["Otherwise softmax becomes too sharp and the gradients vanish.", "sqrt(d_k)"], tmp_path)
    verdict = next(s.strip() for s in said if s.strip().startswith(("✓", "✗")) and "d_k" in s and "standard" in s)
    assert verdict.startswith("✗ Variances of independent terms add"), said
    assert _point("scaling", "variance-grows").feedback not in verdict


def test_every_follow_up_has_its_own_feedback():
    for item in QUIZ.items:
        for kp in getattr(item, "key_points", []):
            if kp.follow_up:
                assert kp.follow_up_feedback and kp.follow_up_feedback != kp.feedback, (item.id, kp.id)
