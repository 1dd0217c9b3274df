"""Issue 10: answers judged the way learners write them. Each behaviour with its negative control."""

import pytest

from grader.quiz.judge import chosen_option, follow_up_answered, judge, numbers_in
from grader.quiz.load import DEFAULT_QUIZ, QuizFileError, load_quiz
from grader.quiz.phrases import ClaimPattern, Doc

QUIZ = load_quiz(DEFAULT_QUIZ)


# ---- the four answers from the issue ------------------------------------------------------------

def test_issue_axis_answer_weighs_explicit_evidence():
    text = ("Normalize along the keys, i.e. the last dimension, so that every receiving position gets weights "
            "adding up to one.")
    res = judge(QUIZ.item("softmax-axis"), text)
    assert res.verdict == "correct" and res.matched == ["A"], res.feedback


def test_issue_attention_pattern_paraphrase_is_weights_unchanged():
    text = "Nothing happens to the attention pattern. The last output's first coordinate goes up by 1 (7 x 1/7)."
    res = judge(QUIZ.item("value-change"), text)
    assert res.verdict == "correct", res.feedback


def test_issue_follow_up_accepts_the_next_token():
    point = next(k for k in QUIZ.item("diagonal").key_points if k.id == "target-is-next")
    assert follow_up_answered(point, "the next token")
    assert follow_up_answered(point, "token i+1")
    assert not follow_up_answered(point, "the current token")
    assert not follow_up_answered(point, "not the next token, the current one")


def test_issue_retracted_claim_is_not_credited():
    text = "The weights are unchanged? Not at all; they all shift. The output goes up by 1."
    res = judge(QUIZ.item("value-change"), text)
    # The retracted "unchanged" is not credited and the shift is named; the right +1 alone makes it partial
    # (issue 26: a numeric item's asked parts are judged one by one).
    assert "weights-change" in res.misconceptions and "weights-unchanged" in res.missing, res.feedback
    assert res.verdict == "partial", res.feedback
    # Negative control: the same question answered "yes" keeps the claim.
    res = judge(QUIZ.item("value-change"), "The weights are unchanged? Yes, exactly. The output goes up by 1.")
    assert res.verdict == "correct", res.feedback


# ---- evidence weighed, not counted --------------------------------------------------------------

@pytest.mark.parametrize("text,picked", [
    ("nn.Softmax(dim=-1), which operates along the last dims (query_len).", ["A"]),
    ("For each row i (fixed query), apply softmax across columns j (keys).", ["A"]),
    ("axis=-1, which is correct here; axis=-2 would produce the column-normalized object instead.", ["A"]),
    ("dim=-2, over the receiving positions, so each column sums to one", ["B"]),
    ("The answer is B.", ["B"]),
    ("over the queries or over the keys, I am not sure", ["A", "B"]),  # a genuine tie of equal strength
    ("something about receiving and keys", ["A", "B"]),  # incidental words only, tied
])
def test_choice_evidence_strength(text, picked):
    assert chosen_option(QUIZ.item("softmax-axis"), text) == picked


def test_tie_asks_to_commit():
    res = judge(QUIZ.item("softmax-axis"), "over the queries or over the keys, I am not sure")
    assert res.verdict == "incorrect" and "commit to one" in res.feedback


# ---- claims: one claim, many phrasings ----------------------------------------------------------

@pytest.mark.parametrize("text", [
    "The attention pattern is unaffected and the output rises by 1.",
    "The weights are untouched; the final output's first coordinate goes up by 1.",
    "Identical shares as before, and the output increases by 1.",
    "The routing stays put. Output +1.",
    "Weights come from the queries and keys only, so they remain 1/7, 2/7, 4/7; the output changes by 1.",
    "The attention weight a_ij depends only on the query-key pair, so it is unchanged; the output goes up by 1.",
])
def test_weights_unchanged_phrasings(text):
    assert judge(QUIZ.item("value-change"), text).verdict == "correct"


@pytest.mark.parametrize("text", [
    "The weights are not the same any more; the output rises by 1.",
    "The weights change; the output rises by 1.",
    "The attention pattern shifts toward the first token, and the output rises by 1.",
    "It is a myth that the weights stay the same; the output rises by 1.",
])
def test_weights_claim_denied_or_reversed(text):
    assert judge(QUIZ.item("value-change"), text).verdict != "correct"


def test_pronoun_needs_number_agreement():
    # "it" cannot stand for "weights": the output goes up, not the weights.
    res = judge(QUIZ.item("value-change"), "The weights stay the same. It goes up by 1.")
    assert res.verdict == "correct" and not res.misconceptions


@pytest.mark.parametrize("text,present", [
    ("Each query is matched against every key.", True),
    ("The keys are scored against the query.", True),
    ("How well a query lines up with the keys decides the shares.", True),
    ("Each token generates query, key and value vectors.", False),  # co-mention is not the claim
])
def test_queries_keys_claim(text, present):
    point = next(k for k in QUIZ.item("what-mixes").key_points if k.id == "weights-from-queries-keys")
    res = judge(QUIZ.item("what-mixes"), text)
    assert (point.id in res.matched) == present


def test_claim_pattern_window_and_sentence():
    pattern = ClaimPattern(["weights?"], ["same"], [], denied=False, window=4)
    assert pattern.matches(Doc("the weights stay the same"))
    assert not pattern.matches(Doc("the weights. The output is the same"))  # another sentence
    assert not pattern.matches(Doc("the weights rise and then, much later on, the output stays the same"))
    assert not pattern.matches(Doc("the weights are not the same"))
    assert ClaimPattern(["weights?"], ["same"], [], denied=True, window=4).matches(Doc("weights aren't the same"))


def test_unknown_term_is_a_clear_error(tmp_path):
    import json

    data = json.loads(DEFAULT_QUIZ.read_text())
    data["items"][0]["key_points"][0]["claims"] = [{"subject": ["@nonesuch"]}]
    path = tmp_path / "quiz.json"
    path.write_text(json.dumps(data, indent=2))
    with pytest.raises(QuizFileError, match="unknown term '@nonesuch'"):
        load_quiz(path)


# ---- negation and contrast ------------------------------------------------------------------------

@pytest.mark.parametrize("iid,text", [
    ("diagonal", "Every token is part of the input, so a position may attend to itself and to later tokens too."),
    ("what-mixes", "Queries are compared with keys, and the model then selects the single best value."),
    ("zero-queries", "weights 1/3 each, and the output is the sum of the values: [8, 6]"),
])
def test_right_phrase_inside_wrong_claim_is_not_credited(iid, text):
    assert judge(QUIZ.item(iid), text).verdict == "incorrect"


def test_wrong_amount_is_not_credited_beside_right_weights():
    # Issue 26: a numeric item's asked parts are judged one by one (both blind sets' labellers rule so): the
    # wrong "+7" is not credited and is named, the right weights keep the answer partial (it was incorrect).
    res = judge(QUIZ.item("value-change"), "The weights stay the same, and the output goes up by 7.")
    assert res.verdict == "partial" and "delta" in res.missing and "whole-change" in res.misconceptions


def test_future_named_only_to_deny_it_is_not_a_misconception():
    text = ("Row i predicts the next token; its own token is already known, so seeing it leaks nothing. "
            "Seeing the next token would give the answer away, which is why it is masked.")
    res = judge(QUIZ.item("diagonal"), text)
    assert res.verdict == "correct", res.feedback


# ---- numbers as people write them -----------------------------------------------------------------

@pytest.mark.parametrize("text,values", [
    ("1/3", [1 / 3]), ("0.333", [0.333]), (".33", [0.33]), ("33%", [0.33]), ("33.3 %", [0.333]),
    ("(8/3, 2)", [8 / 3, 2]), ("[2.667 2.0]", [2.667, 2.0]), ("e^0/(3e^0) = 1/3", [1 / 3]),
])
def test_numbers_in(text, values):
    assert numbers_in(text) == pytest.approx(values)


@pytest.mark.parametrize("text", [
    "weights: 1/3, 1/3, 1/3; output: (8/3, 2)",
    "weights 0.333 each, output [2.667 2.0]",
    "Equal scores become equal percentages: weights 33.3% / 33.3% / 33.3%; output (2.67, 2).",
    "All scores are 0, so the weights are e^0/(3e^0) = 33% each and the output is [8/3, 2].",
    "weights .33 .33 .33, output 2.667, 2",
])
def test_zero_queries_notations(text):
    assert judge(QUIZ.item("zero-queries"), text).verdict == "correct"


@pytest.mark.parametrize("text", [
    "weights 50% each, output (8/3, 2)",
    "weights 1/3 each, output [2, 0]",
])
def test_zero_queries_wrong_numbers(text):
    assert judge(QUIZ.item("zero-queries"), text).verdict != "correct"


def test_session_follow_up_credits_the_next_token(tmp_path):
    from grader.quiz.session import run_session

    replies = iter(["Its own token is already known, so seeing it leaks nothing.", "the next token", ":q"])
    prompts: list[str] = []
    said: list[str] = []
    quiz = QUIZ.model_copy(update={"items": [QUIZ.item("diagonal")]})
    run_session(quiz, tmp_path / "s.json", ask=lambda p: (prompts.append(p), next(replies))[1], say=said.append)
    assert any("which token is the model trying to predict" in p for p in prompts), prompts
    assert any(s.strip().startswith("✓ Row i's target is the next token") for s in said), said


@pytest.mark.parametrize("opening", ["Without it", "Without scaling,", "Without the division"])
def test_without_takes_its_object_not_the_clause_after_it(opening):
    """Found by a user: "Without it the dot products grow ..." was read as denying that they grow."""
    text = f"{opening} the dot products grow with d_k, so softmax saturates and the gradients vanish."
    assert judge(QUIZ.item("scaling"), text).verdict == "correct"
    denied = "The dot products do not grow with d_k, so softmax saturates and the gradients vanish."
    assert judge(QUIZ.item("scaling"), denied).verdict != "correct"  # a real negation still denies
