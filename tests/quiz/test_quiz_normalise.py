"""Issue 26, class 1: an answer is normalised before it is judged (spelling, contractions written without
apostrophes, number words, symbols), so the way it is typed never flips its meaning."""

import pytest

from grader.quiz.judge import judge, numbers_in
from grader.quiz.load import DEFAULT_QUIZ, load_quiz
from grader.quiz.phrases import Doc, normalise

QUIZ = load_quiz(DEFAULT_QUIZ)


@pytest.mark.parametrize("bare,written", [
    ("the weights dont change", "the weights don't change"),
    ("it doesnt move", "it doesn't move"),
    ("that isnt causal", "that isn't causal"),
    ("sums cant prove it", "sums can't prove it"),
    ("the rows wont change", "the rows won't change"),
    ("they arent the same", "they aren't the same"),
    ("its not the values", "it's not the values"),
])
def test_contractions_without_apostrophes(bare, written):
    assert normalise(bare) == normalise(written)


def test_its_before_a_noun_stays_possessive():
    assert normalise("its own token") == "its own token"


def test_missing_apostrophe_no_longer_flips_the_negation():
    # The answer: scored 0 and flagged "the weights change".
    res = judge(QUIZ.item("value-change"), "the weights dont change, the outputs first coord rises by exactly one")
    assert res.verdict == "correct", res.feedback
    # Negative control: the weights said to change.
    res = judge(QUIZ.item("value-change"), "the weights do change, the outputs first coord rises by exactly one")
    assert res.verdict != "correct", res.feedback


@pytest.mark.parametrize("text,value", [
    ("a third", 1 / 3), ("one third", 1 / 3), ("two thirds", 2 / 3), ("one seventh", 1 / 7),
    ("four sevenths", 4 / 7), ("a half", 1 / 2), ("exactly one", 1.0), ("goes up by one", 1.0),
])
def test_number_words(text, value):
    assert numbers_in(normalise(text)) == [pytest.approx(value)]


def test_one_as_a_pronoun_is_no_number():
    assert numbers_in(normalise("the current one is known")) == []


@pytest.mark.parametrize("text", [
    "each weight is a third, output [8/3, 2]",
    "weights are uniform and the output is [2.667, 2]",
    "equal shares, output [2.67, 2.0]",
    "the weights split evenly; the output is (8/3, 2)",
])
def test_equal_or_uniform_reads_as_one_over_n(text):
    res = judge(QUIZ.item("zero-queries"), text)
    assert res.verdict == "correct", res.feedback


def test_uniform_is_one_over_n_only_for_a_distribution():
    # Negative controls: "equal" says nothing about an output vector, nor gives a wrong n.
    res = judge(QUIZ.item("zero-queries"), "weights are uniform, output is equal too")
    assert res.verdict == "partial" and res.missing == ["output"], res.feedback
    res = judge(QUIZ.item("zero-queries"), "weights 1/2 each, output [8/3, 2]")
    assert "weights" in res.missing, res.feedback


@pytest.mark.parametrize("typed,meant", [
    ("sofmax", "softmax"), ("wieghts", "weights"), ("ouput", "output"), ("recieving", "receiving"),
    ("diagnoal", "diagonal"), ("varience", "variance"),
])
def test_spelling_against_the_chapter_vocabulary(typed, meant):
    assert Doc(f"the {typed} here", vocabulary=QUIZ.vocabulary).text == f"the {meant} here"


@pytest.mark.parametrize("word", ["cheat", "task", "blue", "note", "nothing", "never", "think", "edits"])
def test_real_words_short_words_and_negations_are_left_alone(word):
    # "think" is one edit from the quiz's "thing", "edits" from "emits": an English word is never a typo.
    # "note" is one edit from "not", but a denial must be typed to count.
    assert Doc(f"the {word} here", vocabulary=QUIZ.vocabulary).text == f"the {word} here"


def test_misspelt_label_still_labels_its_number():
    res = judge(QUIZ.item("zero-queries"), "ouput [8/3, 2], wieghts 1/3 each")
    assert res.verdict == "correct", res.feedback


@pytest.mark.parametrize("a,b", [
    ("divide by sqrt(d_k)", "divide by sqrt d k"),
    ("divide by √dk", "divide by sqrt d k"),
    ("scores ln(2) and ln4", "scores ln 2 and ln 4"),
    ("QK^T over sqrt(dk)", "q dot k over sqrt d k"),
])
def test_symbols_and_units(a, b):
    assert normalise(a) == normalise(b)


@pytest.mark.parametrize("text, said", [
    ("masking after softmax gives sums < 1", "gives sums less than 1"),
    ("at least one allowed position per row (>= 1)", "at least 1"),
    ("row sums <= 1", "row sums at most 1"),
])
def test_a_comparison_with_a_number_is_read_in_words(text, said):
    assert said in normalise(text)


@pytest.mark.parametrize("text, said", [("j < i", "earlier positions"), ("j <= i", "positions up to i")])
def test_comparisons_of_indices_keep_their_meaning(text, said):
    assert said in normalise(text)
