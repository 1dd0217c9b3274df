"""Issue 26, the classes of error found on the second blind set once it became a tuning set (2026-12-01).

Each class is fixed by a general mechanism, and each test here failed before its fix. The sentences are
written for these tests (none is a labelled set's answer), so that they check the mechanism, not one answer."""

import pytest

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)


# ---- a hedge after a question doubts it, it does not take it back -------------------------------

@pytest.mark.parametrize("text", [
    "the query compared with each key gives the weights, i think? not sure about what gets mixed",
    "Queries matched against keys set the weights? Not certain. Never learned the rest.",
])
def test_not_sure_after_a_question_keeps_the_claim(text):
    res = judge(QUIZ.item("what-mixes"), text)
    assert res.verdict == "partial" and "weights-from-queries-keys" in res.matched, res.feedback


def test_a_denial_after_a_question_still_takes_it_back():
    # Negative control: "No." answers the question.
    res = judge(QUIZ.item("what-mixes"), "The values set the weights? No. The query and key scores set the weights.")
    assert "weights-from-queries-keys" in res.matched, res.feedback
    res = judge(QUIZ.item("what-mixes"), "The query compared with each key gives the weights? No.")
    assert "weights-from-queries-keys" not in res.matched, res.feedback


# ---- a numeric item's asked parts are judged one by one ----------------------------------------

VALUE_CHANGE = QUIZ.item("value-change")


@pytest.mark.parametrize("text", [
    "The first coordinate goes up by exactly 1, though the weights get recomputed and move a bit.",
    "Weights unchanged; the first output coordinate grows by 7.",
])
def test_a_wrong_answer_to_one_asked_part_leaves_the_other_right(text):
    res = judge(VALUE_CHANGE, text)
    assert res.verdict == "partial", res.feedback
    assert res.feedback.startswith("!"), res.feedback  # the wrong part is still named first


@pytest.mark.parametrize("text", [
    "The weights shift towards the first source and the coordinate rises by 7.",  # no part right
    "The weights stay put, but attention just picks the first value, so the output rises by 7.",  # a wrong mechanism
    "Its weight grows, so the output rises by more than 1.",  # a bound is no value
])
def test_no_part_right_or_a_wrong_mechanism_is_incorrect(text):
    res = judge(VALUE_CHANGE, text)
    assert res.verdict == "incorrect", res.feedback


def test_a_bound_is_no_value():
    # "more than 1" was read as 1: a wrong answer judged correct.
    res = judge(VALUE_CHANGE, "The weights do not change; the output rises by more than 1.")
    assert res.verdict == "partial" and "delta" in res.missing, res.feedback
    res = judge(QUIZ.item("zero-queries"), "weights at least 1/3 each, output [8/3, 2]")
    assert "weights" in res.missing, res.feedback


def test_contradicts_names_an_asked_part_of_a_numeric_item():
    import json

    from pydantic import ValidationError

    from grader.quiz.load import DEFAULT_QUIZ as PATH
    from grader.quiz.models import Quiz

    data = json.loads(PATH.read_text(encoding="utf-8"))
    item = next(i for i in data["items"] if i["id"] == "value-change")
    item["misconceptions"][0]["contradicts"] = "no-such-part"
    with pytest.raises(ValidationError, match="no target or required key point"):
        Quiz.model_validate(data)
    item["misconceptions"][0]["contradicts"] = "delta"
    mixes = next(i for i in data["items"] if i["id"] == "what-mixes")
    mixes["misconceptions"][0]["contradicts"] = "values-mixed"
    with pytest.raises(ValidationError, match="for numeric items"):
        Quiz.model_validate(data)


# ---- positions written as indices, and "no change" written as a number ------------------------

INTERVENTION = QUIZ.item("row-sums-vs-causality")
SUMS = "Any softmax row sums to one, even a leaky one, so sums prove nothing about causality."


@pytest.mark.parametrize("test", [
    "Replace the last token with another and check that outputs 0 and 1 are identical.",
    "Perturb only position T-1 and check that rows 0..T-2 of the output stay the same.",
    "Edit the final input; the outputs at every j < k must be unchanged.",
    "Change the last token's value and compare the earlier rows: max change 0.000000.",
    "Modify the last input and check the earlier outputs: zero difference.",
])
def test_intervention_written_with_indices_or_numbers(test):
    res = judge(INTERVENTION, f"{SUMS} {test}")
    assert res.verdict == "correct", res.feedback


@pytest.mark.parametrize("test", [
    "Replace the last token with another and check that outputs 0 and 1 change.",
    "Change the last token's value and compare the earlier rows: max change 9.921041.",
    "Edit the final input and compare rows 0 and 1: a change of 0.5.",
])
def test_intervention_with_moving_indices_is_not_credited(test):
    # Negative controls: the earlier rows move, or the change is not zero.
    res = judge(INTERVENTION, f"{SUMS} {test}")
    assert "intervention" not in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "Softmax makes every row add up to one, leaky or not, so the sums cannot show causality.",
    "Rows sum to one with or without the mask, so the sum tells you nothing.",
])
def test_or_not_reads_as_regardless(text):
    res = judge(INTERVENTION, text)
    assert "sums-insufficient" in res.matched, res.feedback


# ---- a claim held to one clause does not straddle "so" or ", but" -------------------------------

DIAGONAL = QUIZ.item("diagonal")


@pytest.mark.parametrize("text", [
    "Row i is trying to guess the next token, so attending to the current token gives nothing away.",
    "The target is the following token, therefore looking at your own position is fair.",
])
def test_a_claim_does_not_straddle_a_consequence(text):
    res = judge(DIAGONAL, text)
    assert "future-visible" not in res.misconceptions, res.feedback


def test_the_claim_inside_one_clause_still_counts():
    # Negative control: the wrong claim made inside one clause.
    res = judge(DIAGONAL, "The target is the next token, so the model should look at the next token to predict it.")
    assert "future-visible" in res.misconceptions, res.feedback


# ---- a choice letter named as the alternative set aside is no pick --------------------------------

@pytest.mark.parametrize("text", [
    "not over the queries, that would be B. over the keys for each row, so A",
    "Not down the columns, that'd be B; each row over its sources: A.",
    "A. B is what you would get by normalising columns.",
])
def test_the_alternative_set_aside_is_no_pick(text):
    res = judge(QUIZ.item("softmax-axis"), text)
    assert res.verdict == "correct" and res.matched == ["A"], res.feedback


@pytest.mark.parametrize("text,picked", [
    ("Over each row, that would be A.", ["A"]),  # no rejection before it: a pick
    ("It could be A, over the keys", ["A"]),
    ("Not A, that would be rows; B.", ["B"]),
])
def test_a_hedged_or_affirmed_letter_is_still_a_pick(text, picked):
    from grader.quiz.judge import chosen_option

    assert chosen_option(QUIZ.item("softmax-axis"), text) == picked


# ---- claim structure: points said in the words learners use -------------------------------------

WVP = QUIZ.item("weights-vs-probabilities")


@pytest.mark.parametrize("text,point", [
    ("Attention weights decide how to blend information from the earlier tokens.", "over-positions"),
    ("An attention row: one entry per source position.", "over-positions"),
    ("attention row has n entries (positions).", "over-positions"),
    ("The output layer works out which word comes next.", "over-vocabulary"),
    ("The final softmax says which token to emit.", "over-vocabulary"),
])
def test_ranges_said_in_other_words(text, point):
    assert point in judge(WVP, text).matched


@pytest.mark.parametrize("text", [
    "The output layer gives one number per position for every token in the vocabulary.",  # no attention named
    "Attention weights are the probability of the next token.",  # the misconception, not a range
])
def test_an_entry_per_position_needs_attention_as_its_subject(text):
    assert "over-positions" not in judge(WVP, text).matched


@pytest.mark.parametrize("text", [
    "The current token belongs to the context the model already has.",
    "Token i is part of the input, so showing it hides nothing.",
    "Its own position is in what the model already knows.",
])
def test_own_token_is_part_of_what_is_known(text):
    assert "own-token-known" in judge(DIAGONAL, text).matched


def test_the_next_token_being_part_of_the_input_is_not_credited():
    # Negative control: token i+1 is the target, not part of the input.
    assert "own-token-known" not in judge(DIAGONAL, "The token at i+1 belongs to the input.").matched


@pytest.mark.parametrize("text", ["The target sits one step ahead.", "Each row predicts the token one position later."])
def test_one_step_ahead_is_the_next_token(text):
    assert "target-is-next" in judge(DIAGONAL, text).matched


def test_variance_said_to_shrink_with_width_is_a_wrong_claim():
    res = judge(QUIZ.item("scaling"), "The scores' variance decreases as d_k grows, so the softmax would go flat; we rescale.")
    assert res.verdict == "incorrect" and "variance-shrinks" in res.misconceptions, res.feedback
    res = judge(QUIZ.item("scaling"), "The variance grows with d_k; dividing by sqrt(d_k) shrinks it back, so softmax "
                                      "does not saturate.")
    assert "variance-shrinks" not in res.misconceptions, res.feedback


def test_a_correct_mask_said_to_leave_rows_under_one_is_a_wrong_claim():
    res = judge(INTERVENTION, "A correct mask makes the early rows sum to less than one, so look for that.")
    assert res.verdict == "incorrect" and "masked-rows-unnormalised" in res.misconceptions, res.feedback
    res = judge(INTERVENTION, "Masking after softmax makes rows sum to less than one; that is a different bug.")
    assert "masked-rows-unnormalised" not in res.misconceptions, res.feedback


@pytest.mark.parametrize("text", [
    "Normalisation and causality are separate properties.",
    "Row sums ≠ causality.",
    "Being row-stochastic is distinct from being causal.",
])
def test_sums_and_causality_said_to_differ(text):
    assert "sums-insufficient" in judge(INTERVENTION, text).matched


def test_sums_said_to_show_causality_is_still_wrong():
    # Negative control: the misconception the point guards against.
    res = judge(INTERVENTION, "Each row sums to one, so the attention is causal.")
    assert res.verdict == "incorrect" and "sums-insufficient" not in res.matched, res.feedback


# ---- more of the same classes, found by answers written here to probe them -----------------------

@pytest.mark.parametrize("text", [
    "definitely not C or D. I'd go with A",
    "neither B nor C, it is A",
    "not B, C or D: A",
])
def test_letters_rejected_together(text):
    res = judge(QUIZ.item("softmax-axis"), text)
    assert res.verdict == "correct" and res.matched == ["A"], res.feedback


def test_not_b_comma_a_is_a_contrast_not_a_list():
    res = judge(QUIZ.item("softmax-axis"), "not B, A. each row over its sources")
    assert res.verdict == "correct", res.feedback


@pytest.mark.parametrize("item,text,point", [
    ("what-mixes", "queries vs keys -> weights. weights x values -> output.", "weights-from-queries-keys"),
    ("what-mixes", "queries vs keys -> weights. weights x values -> output.", "values-mixed"),
    ("scaling", "Big d_k means big scores, because you add up more terms.", "variance-grows"),
    ("diagonal", "x_i is already given when predicting x_{i+1}.", "own-token-known"),
    ("row-sums-vs-causality", "Alter x_T only; outputs 1..T-1 must be identical.", "intervention"),
])
def test_notes_style_symbols(item, text, point):
    assert point in judge(QUIZ.item(item), text).matched


def test_the_next_input_is_not_already_given():
    # Negative controls: x_{i+1} is the target, and "the input at position i" says nothing about what is known.
    assert "own-token-known" not in judge(DIAGONAL, "x_{i+1} is given to row i.").matched
    assert "own-token-known" not in judge(DIAGONAL, "The input at position i is trained to predict token i+1.").matched


# ---- a contrast denies the phrase it names, not the clause that resumes after it -----------------

@pytest.mark.parametrize("text", [
    "A broken mask using 0 instead of -inf still gives rows that sum to one.",
    "A mask with zeros rather than -inf still makes every row add up to one.",
])
def test_contrast_denies_only_its_own_phrase(text):
    assert "sums-insufficient" in judge(INTERVENTION, text).matched


def test_contrast_still_denies_its_phrase():
    # Negative control: what the contrast names stays denied ("rather than the values").
    res = judge(QUIZ.item("what-mixes"), "The weights come from the values rather than from the queries and keys.")
    assert "weights-from-queries-keys" not in res.matched, res.feedback


def test_dotted_compares_and_dividing_to_sharpen_is_wrong():
    res = judge(QUIZ.item("what-mixes"), "Each query is dotted with every key to give the weights, which average the values.")
    assert res.verdict == "correct", res.feedback
    res = judge(QUIZ.item("scaling"), "Otherwise softmax is too flat, so dividing makes it sharper.")
    assert res.verdict == "incorrect" and "scaling-sharpens" in res.misconceptions, res.feedback


def test_rows_before_it_are_the_earlier_rows():
    res = judge(INTERVENTION, "Sums only show it is normalised, not causal. Tweak the last token and make sure the rows "
                              "before it do not move.")
    assert res.verdict == "correct", res.feedback
    res = judge(INTERVENTION, "Tweak the last token and make sure the rows before it move.")  # negative control
    assert "intervention" not in res.matched, res.feedback


def test_kept_reasonable_when_the_dimension_is_big_is_the_growth():
    res = judge(QUIZ.item("scaling"), "It keeps the scores reasonable when the dimension is big.")
    assert "variance-grows" in res.matched, res.feedback


# ---- numbers: written-out arithmetic is working, a share said once stands for all --------------

@pytest.mark.parametrize("text", [
    "1/3 each -> o = (2+0+6)/3, (0+4+2)/3 = [2.667, 2]",
    "0.33 each, so (2+0+6)/3 and (0+4+2)/3: [8/3, 2]",
])
def test_arithmetic_working_and_a_share_said_once(text):
    res = judge(QUIZ.item("zero-queries"), text)
    assert res.verdict == "correct", res.feedback


def test_working_does_not_hide_a_wrong_result():
    # Negative control: the plain sum, however it is worked out, is still wrong.
    res = judge(QUIZ.item("zero-queries"), "1/3 each -> (2+0+6), (0+4+2) = [8, 6]")
    assert "output" in res.missing, res.feedback


# ---- exclusive qualifiers in other words, and at the end of their clause ---------------------------

@pytest.mark.parametrize("text", [
    "The keys decide the weights on their own and the values get mixed.",
    "The query sets the weights by itself; the values are blended.",
    "The keys decide the weights alone, and the values are averaged.",
])
def test_alone_in_other_words_or_at_the_clause_end_is_a_wrong_claim(text):
    res = judge(QUIZ.item("what-mixes"), text)
    assert res.verdict == "incorrect" and "weights-from-queries-keys" not in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "Queries and keys decide the weights on their own; the values get mixed.",
    "The query compared with the keys sets the weights by itself, and the values get mixed.",
])
def test_alone_over_everything_the_clause_names_is_credited(text):
    assert judge(QUIZ.item("what-mixes"), text).verdict == "correct"


@pytest.mark.parametrize("text,wrong", [
    ("With a proper causal mask the rows would not sum to one, so look at the sums.", "masked-rows-unnormalised"),
    ("Rows summing to one is a good test of the mask.", "sums-prove-causality"),
])
def test_more_wrong_claims_about_sums(text, wrong):
    res = judge(INTERVENTION, text)
    assert res.verdict == "incorrect" and wrong in res.misconceptions, res.feedback


def test_either_way_is_regardless():
    assert "sums-insufficient" in judge(INTERVENTION, "Sums are one either way, so they prove nothing.").matched


@pytest.mark.parametrize("item,text,point", [
    ("diagonal", "The prediction made at row i is for token i+1.", "target-is-next"),
    ("row-sums-vs-causality", "Modify the future inputs and check that nothing earlier moves.", "intervention"),
    ("weights-vs-probabilities", "The probabilities come at the very end, from the unembedding.", "over-vocabulary"),
])
def test_more_points_in_other_words(item, text, point):
    assert point in judge(QUIZ.item(item), text).matched



# ==== the classes of error found on the third blind set once it became a tuning set (2026-12-02) ====

# ---- a hedge doubts a question, however it is worded; it does not take it back ---------------------

@pytest.mark.parametrize("text", [
    "Attention rows are over positions and the other one covers the vocab? not 100% sure",
    "the weights range over positions, the probabilities over the vocabulary? Not entirely sure though",
])
def test_a_worded_hedge_after_a_question_keeps_the_claim(text):
    res = judge(QUIZ.item("weights-vs-probabilities"), text)
    assert "over-vocabulary" in res.matched, res.feedback


def test_a_denial_after_a_question_still_takes_it_back_when_worded():
    # Negative control: "Not at all." answers the question.
    res = judge(QUIZ.item("weights-vs-probabilities"), "The next-token probabilities are over the vocab? Not at all.")
    assert "over-vocabulary" not in res.matched, res.feedback


# ---- notation written inline: subscripts in words, "~", "=>", T-1 after its noun, R^T -----------------

@pytest.mark.parametrize("item,text,point", [
    ("scaling", "the std of the raw dot product ~ sqrt(d subscript k); divide by it or softmax goes one-hot", "variance-grows"),
    ("scaling", "standard deviation of q.k is about the root of d sub k", "variance-grows"),
    ("row-sums-vs-causality", "perturb position T-1 only, then compare rows 0..T-2 before and after: causal gives zero difference",
     "intervention"),
    ("row-sums-vs-causality", "edit token n-1 alone; compare outputs 0..n-2 before/after; causal => zero change", "intervention"),
    ("row-sums-vs-causality", "alter x_T and check whether y_1..y_{T-1} change; they should not", "intervention"),
    ("row-sums-vs-causality", "Test: perturb x_T, assert y_{<T} unchanged.", "intervention"),
    ("weights-vs-probabilities", "an attention row lives in R^T, the next-token distribution in R^|V|", "over-positions"),
    ("weights-vs-probabilities", "an attention row lives in R^T, the next-token distribution in R^|V|", "over-vocabulary"),
])
def test_inline_notation_is_read(item, text, point):
    res = judge(QUIZ.item(item), text)
    assert point in res.matched, res.feedback


def test_the_variance_said_to_be_sqrt_of_the_width_is_a_wrong_claim():
    # The standard deviation is sqrt(d_k); the variance is d_k. Saying the variance grows like sqrt(d_k) is wrong.
    for text in ["Variance of q dot k scales like sqrt(d_k), hence the division; otherwise softmax saturates.",
                 "the variance is sqrt(d_k), so large widths give peaky softmax with tiny gradients"]:
        res = judge(QUIZ.item("scaling"), text)
        assert res.verdict == "incorrect", (text, res.feedback)
    # Negative control: the standard deviation is sqrt(d_k).
    res = judge(QUIZ.item("scaling"), "The std of q dot k grows like sqrt(d_k), so large widths saturate the softmax "
                                      "and the gradients vanish.")
    assert res.verdict == "correct", res.feedback


# ---- numbers written as a chain of working, or in words --------------------------------------------

ZERO_QUERIES = QUIZ.item("zero-queries")


@pytest.mark.parametrize("text", [
    "w = (1/3, 1/3, 1/3); y = (2+0+6)/3 , (0+4+2)/3 = (8/3, 2) = (2.67, 2.00)",
    "a = [0.333, 0.333, 0.333]; o = 1/3*(2,0) + 1/3*(0,4) + 1/3*(6,2) = [2.667, 2]",
    "weights one over three each, output eight thirds and two.",
    "shares: one third each; output: [eight thirds, two]",
    "weights: a third each. output: two and two thirds, two",
])
def test_numbers_as_working_chains_or_words(text):
    res = judge(ZERO_QUERIES, text)
    assert res.verdict == "correct", res.feedback


@pytest.mark.parametrize("text", [
    "a = [1/3,1/3,1/3]; o = (1/3)(2,0)+(1/3)(0,4)+(1/3)(6,2) = (8, 6)",  # the result of the chain is wrong
    "weights one over two each, output: [four, two]",
    "weights one third each; output is the sum of the values, two vectors.",
])
def test_a_wrong_result_after_working_or_in_words_is_not_credited(text):
    res = judge(ZERO_QUERIES, text)
    assert res.verdict != "correct", res.feedback


# ---- a choice named by its meaning: "columns" named in passing is not "within a column" ----------------

@pytest.mark.parametrize("text", [
    "along the final axis (columns j), every row sums to 1",
    "along dim -1 (the columns), each row adds to one",
])
def test_plural_columns_is_not_within_a_column(text):
    res = judge(QUIZ.item("softmax-axis"), text)
    assert res.verdict == "correct", res.feedback


def test_within_a_column_is_still_b():
    res = judge(QUIZ.item("softmax-axis"), "along each column, so every column sums to one")
    assert res.verdict == "incorrect" and res.matched == ["B"], res.feedback


# ---- wrong claims beside right points ----------------------------------------------------------------

@pytest.mark.parametrize("item,text", [
    ("what-mixes", "The weights depend on how far apart the positions are; nearer tokens get more weight. Values are mixed."),
    ("what-mixes", "Attention weights are set by positional proximity, and the value vectors get blended."),
    ("what-mixes", "the attention weights are based on position: nearby words matter more. Values are blended."),
    ("what-mixes", "The query is compared with the values to get weights; the keys are what gets summed."),
    ("weights-vs-probabilities", "Attention rows range over positions; the next-token distribution is simply the final "
                                 "row of the attention matrix."),
    ("weights-vs-probabilities", "Attention weights are over positions; the next-token probabilities are the attention "
                                 "weights of the last position."),
    ("row-sums-vs-causality", "Sums are one even with a leak, so they prove nothing; instead check that the diagonal "
                              "entries are zero."),
    ("row-sums-vs-causality", "Sums are always one, so they show nothing. Change the last token and check that the "
                              "last position's output does not change."),
])
def test_a_wrong_claim_beside_a_right_point_is_incorrect(item, text):
    res = judge(QUIZ.item(item), text)
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("item,text", [
    ("what-mixes", "The query is compared with the keys, not with the values; the values are what gets summed."),
    ("what-mixes", "Queries dotted with keys give the weights (not the distance between positions); values are mixed."),
    ("row-sums-vs-causality", "Sums are one even with a leak, so they prove nothing. Change the last token and check "
                              "that every earlier position's output does not change."),
])
def test_the_right_claims_beside_those_words_are_not_wrong(item, text):
    res = judge(QUIZ.item(item), text)
    assert res.verdict == "correct", res.feedback


# ---- the intervention as a check whose outcome is left open, and the "why" in other words --------------

@pytest.mark.parametrize("text", [
    "Perturb the final token and watch whether the outputs at earlier positions move; if they do, it leaks.",
    "I edit the last input and check if the earlier outputs change. If they change, the mask is broken.",
    "alter only the future token and compare the earlier outputs before and after; causal means no change",
    "modify the last token; if any earlier output moves, the mask is broken",
])
def test_a_check_left_open_with_what_its_outcome_means_is_the_intervention(text):
    res = judge(QUIZ.item("row-sums-vs-causality"), text)
    assert "intervention" in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "Change the first token and see whether the later outputs move; if they do, it leaks.",  # backwards
    "I edit the last input and check if the earlier outputs change.",  # what would a change mean? (test_quiz_scope)
    "alter only the future token and compare the earlier outputs before and after",
    "Sums are one even if the mask is broken. Alter the last input and check whether earlier rows move.",
])
def test_a_check_of_later_outputs_or_with_no_outcome_is_not_the_intervention(text):
    res = judge(QUIZ.item("row-sums-vs-causality"), text)
    assert "intervention" not in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "A sum of one is only normalisation; it tells nothing about which tokens were read.",
    "rows adding to 1 is just normalization and says nothing about which keys got weight",
])
def test_sums_said_to_be_only_normalisation(text):
    res = judge(QUIZ.item("row-sums-vs-causality"), text)
    assert "sums-insufficient" in res.matched, res.feedback


# ---- the scaling point in other words ------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "it holds the variance of the scores at about one, whatever d_k is",
    "if d_k is big the q k products get a big variance, so we divide to keep it small",
    "so the scores do not get too big with more dimensions, I think?",
    "I guess it keeps the scores from blowing up for wide heads? not totally sure",
    "maybe so the variance doesnt blow up with big d_k?",
    "For wide heads, q·k gets large in magnitude, so we scale it down.",
])
def test_the_growth_in_other_words(text):
    res = judge(QUIZ.item("scaling"), text)
    assert "variance-grows" in res.matched, res.feedback


# ---- the own token said not to be the future; one entry per position -----------------------------

@pytest.mark.parametrize("text", [
    "Looking at your own token is not looking at the future.",
    "The current token is not the future; only later ones are.",
])
def test_the_own_token_is_not_the_future(text):
    res = judge(QUIZ.item("diagonal"), text)
    assert "own-token-known" in res.matched, res.feedback


def test_the_current_token_not_seeing_the_future_is_another_claim():
    res = judge(QUIZ.item("diagonal"), "The current token does not see the future.")
    assert "own-token-known" not in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "each attention row holds T numbers, one for every source position",
    "the attention ones are about positions",
])
def test_an_entry_per_position_in_other_words(text):
    res = judge(QUIZ.item("weights-vs-probabilities"), text)
    assert "over-positions" in res.matched, res.feedback


# ---- a target's name inside an expression is no label: "weights @ V = ..." is the output ------------

@pytest.mark.parametrize("text", [
    "softmax(0, 0, 0) = (1/3, 1/3, 1/3); weights @ V = (8/3, 2)",
    "softmax(0,0,0) gives 0.333 each, and weights times values = [2.667, 2]",
    "a = softmax([0,0,0]) = [1/3, 1/3, 1/3], y = a @ V = [8/3, 2]",
])
def test_a_target_named_in_an_expression_is_no_label(text):
    res = judge(ZERO_QUERIES, text)
    assert res.verdict == "correct", res.feedback


def test_a_wrong_result_of_the_expression_is_not_credited():
    res = judge(ZERO_QUERIES, "softmax(0, 0, 0) = (1/3, 1/3, 1/3); weights @ V = (2, 2)")
    assert res.verdict != "correct", res.feedback


# ---- a dot product written with spaced dots ("q_i . k_j") is no sentence end ---------------------------

@pytest.mark.parametrize("text", [
    "weights <- softmax(q_i . k_j / sqrt(d)), out = sum_j a_ij v_j, so the v's are mixed",
    "a_ij from q . k scores after softmax; the values v get blended",
])
def test_a_spaced_dot_product_is_read(text):
    res = judge(QUIZ.item("what-mixes"), text)
    assert res.verdict == "correct", res.feedback


def test_a_sentence_end_between_letters_still_ends_a_sentence():
    # Negative control: "... is v. K ..." with a capital after the full stop is two sentences.
    res = judge(QUIZ.item("what-mixes"), "What gets mixed is v. Keys are mixed too.")
    assert res.verdict == "incorrect", res.feedback


# ---- attention weights said to be learned parameters ------------------------------------------------

@pytest.mark.parametrize("text", [
    "attention weights are learned parameters, the values are mixed",
    "The weights are trained parameters of the layer; values get mixed.",
])
def test_attention_weights_as_learned_parameters_is_a_wrong_claim(text):
    res = judge(QUIZ.item("what-mixes"), text)
    assert res.verdict == "incorrect", res.feedback


def test_learned_projection_weights_are_no_wrong_claim():
    res = judge(QUIZ.item("what-mixes"), "The projection weights are learned parameters; the attention weights come "
                                         "from the query-key dot products and the values get mixed.")
    assert res.verdict == "correct", res.feedback


# ---- "itself" is the own token, and "it" may stand for it -------------------------------------------

@pytest.mark.parametrize("text", [
    "so each token can attend to itself, it's part of the context already",
    "a token attending to itself is fine: it is in the context",
])
def test_itself_and_a_pronoun_for_it_name_the_own_token(text):
    res = judge(QUIZ.item("diagonal"), text)
    assert "own-token-known" in res.matched, res.feedback


def test_the_next_token_said_to_be_in_the_context_is_still_not_credited():
    res = judge(QUIZ.item("diagonal"), "each token attends to the next one, it is part of the context already")
    assert "own-token-known" not in res.matched, res.feedback


# ---- attention weights said to predict the next word: a wrong claim, never praised -----------------------

@pytest.mark.parametrize("text", [
    "the attention weights predict which word comes next",
    "Attention weights tell you what token comes next.",
])
def test_attention_weights_said_to_pick_the_next_word_is_wrong(text):
    res = judge(QUIZ.item("weights-vs-probabilities"), text)
    assert res.verdict == "incorrect", res.feedback


def test_the_probabilities_said_to_tell_the_next_word_are_right():
    res = judge(QUIZ.item("weights-vs-probabilities"), "Attention weights say which positions to read from; the "
                                                       "next-token probabilities, over the vocabulary, tell which "
                                                       "word comes next.")
    assert res.verdict == "correct", res.feedback


# ---- an update written as code: "+= 1" is a rise by one ---------------------------------------------

@pytest.mark.parametrize("text", [
    "weights: unchanged. output[0] += 1",
    "attention weights stay the same; o[0] += 1.0",
])
def test_an_increment_written_as_code_is_the_change(text):
    res = judge(QUIZ.item("value-change"), text)
    assert res.verdict == "correct", res.feedback


def test_a_wrong_increment_written_as_code_is_not_credited():
    res = judge(QUIZ.item("value-change"), "weights: unchanged. output[0] += 7")
    assert res.verdict != "correct", res.feedback


# ---- more wrong claims and paraphrases, found by probes written here -----------------------------------

@pytest.mark.parametrize("item,text", [
    ("diagonal", "Because token i must see token i+1 to predict it."),
    ("row-sums-vs-causality", "Sums prove nothing. Change the last token and check that the earlier outputs change."),
    ("weights-vs-probabilities", "they're the same, both sum to one over the vocabulary"),
])
def test_more_wrong_claims_are_incorrect(item, text):
    res = judge(QUIZ.item(item), text)
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("item,text,verdict", [
    # the negative control expects the earlier outputs to change: no wrong claim
    ("row-sums-vs-causality", "Sums prove nothing. Change the last token and check that the earlier outputs stay the "
                              "same; without the mask, check that the earlier outputs change.", "correct"),
    ("weights-vs-probabilities", "They are the same kind of object, a distribution, but attention is over positions and "
                                 "the next-token probabilities over the vocabulary.", "correct"),
    ("what-mixes", "queries and keys make the weights; the output is a mix", "partial"),
])
def test_the_right_claims_near_those_words(item, text, verdict):
    res = judge(QUIZ.item(item), text)
    assert res.verdict == verdict, res.feedback


# ---- shares said to be "the same" are equal shares -------------------------------------------------

@pytest.mark.parametrize("text", [
    "weights are same, one third. output i dont know",
    "the weights are all the same; output unknown",
])
def test_shares_said_to_be_the_same_are_equal(text):
    res = judge(ZERO_QUERIES, text)
    assert res.verdict == "partial" and res.matched == ["weights"], res.feedback


def test_the_same_as_before_is_no_equal_share():
    res = judge(ZERO_QUERIES, "the weights are the same as before; output unknown")
    assert "weights" not in res.matched, res.feedback


# ---- unicode fractions, and weights "defined" by queries and keys ----------------------------------------

@pytest.mark.parametrize("text", ["Weights: [⅓, ⅓, ⅓]; output: [8/3, 2]", "⅓ each, output (2⅔, 2)"])
def test_unicode_fractions_are_numbers(text):
    res = judge(ZERO_QUERIES, text)
    assert res.verdict == "correct", res.feedback


def test_weights_defined_by_queries_and_keys():
    res = judge(QUIZ.item("what-mixes"), "the keys and queries define the attention pattern")
    assert res.verdict == "partial" and "weights-from-queries-keys" in res.matched, res.feedback


# ---- the intervention and the "why" in still other words ---------------------------------------------

@pytest.mark.parametrize("text", [
    "Replace the final input with noise. Outputs for earlier tokens should not budge.",
    "feed two sequences that differ only in the last token; the outputs for all earlier positions must match",
])
def test_the_intervention_in_other_words(text):
    res = judge(QUIZ.item("row-sums-vs-causality"), text)
    assert "intervention" in res.matched, res.feedback


def test_earlier_outputs_that_must_differ_are_not_the_intervention():
    res = judge(QUIZ.item("row-sums-vs-causality"), "feed two sequences that differ only in the last token; the "
                                                    "outputs for all earlier positions must not match")
    assert "intervention" not in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "Every softmax row adds up to one no matter which positions it reads from.",
    "normalisation only means the weights add to 1; it says nothing about where they point",
])
def test_the_why_in_other_words(text):
    res = judge(QUIZ.item("row-sums-vs-causality"), text)
    assert "sums-insufficient" in res.matched, res.feedback


# ---- the target said as what a row is trained to output --------------------------------------------

@pytest.mark.parametrize("text", ["Row i is trained to output token i+1.", "each position learns to produce x_{i+1}"])
def test_the_target_as_what_a_row_is_trained_to_output(text):
    res = judge(QUIZ.item("diagonal"), text)
    assert "target-is-next" in res.matched, res.feedback


def test_the_growth_denied_outside_a_purpose_clause_is_not_credited():
    # "so the numbers don't get huge with more dimensions" states what the division prevents; a plain denial
    # of the growth states the opposite of the point.
    res = judge(QUIZ.item("scaling"), "The dot products do not get larger with more dimensions.")
    assert "variance-grows" not in res.matched, res.feedback


def test_dividing_by_sqrt_to_normalise_the_std_is_not_the_growth():
    res = judge(QUIZ.item("scaling"), "We divide by sqrt(d_k) to normalize the standard deviation.")
    assert "variance-grows" not in res.matched, res.feedback


def test_ranges_swapped_with_about_are_wrong():
    res = judge(QUIZ.item("weights-vs-probabilities"), "the next-token probabilities are about positions and the "
                                                       "attention weights are about the vocabulary")
    assert res.verdict == "incorrect", res.feedback


def test_ranges_swapped_as_entries_per_word_and_per_position_are_wrong():
    res = judge(QUIZ.item("weights-vs-probabilities"), "attention weights have one entry per vocabulary word, and "
                                                       "the next-token probabilities one per source position")
    assert res.verdict == "incorrect", res.feedback
    # Negative control: the right way round.
    res = judge(QUIZ.item("weights-vs-probabilities"), "attention weights have one entry per source position, and "
                                                       "the next-token probabilities one per vocabulary word")
    assert res.verdict == "correct", res.feedback


# ==== issue 26, the classes of error found on the fourth blind set once it became a tuning set (2026-12-02) ====

# ---- a chain of working is judged by its result ------------------------------------------------

@pytest.mark.parametrize("text", [
    "It goes up by 3/7 * 7 = 3 and the weights stay the same.",
    "The weights are unchanged; the output moves by 2/7*7 = 2.",
])
def test_a_chain_is_judged_by_its_result_not_a_fraction_split_from_it(text):
    # "4/7 * 7 = 4" once read as 4/4 = 1: the working's fraction and its result glued into one number.
    res = judge(VALUE_CHANGE, text)
    assert res.verdict == "partial" and "delta" in res.missing, res.feedback


@pytest.mark.parametrize("text", [
    "It goes up by 1/7 * 7 = 1 and the weights stay the same.",
    "The weights are unchanged; the output moves by one seventh of seven, which is one.",
    "weights unchanged; o[0] +1.0",
    "The weights stay the same; the first output coordinate becomes 33/7 instead of 26/7.",
])
def test_a_chain_or_a_before_and_after_with_the_right_result_is_correct(text):
    res = judge(VALUE_CHANGE, text)
    assert res.verdict == "correct", res.feedback


def test_a_written_out_softmax_of_zeros_is_working():
    res = judge(QUIZ.item("zero-queries"), "softmax of [0, 0, 0] gives [1/3, 1/3, 1/3], so the output is [8/3, 2]")
    assert res.verdict == "correct", res.feedback
    # Negative control: the shares themselves wrong.
    res = judge(QUIZ.item("zero-queries"), "softmax of [0, 0, 0] gives [1/2, 1/4, 1/4], so the output is [8/3, 2]")
    assert res.verdict != "correct", res.feedback


# ---- a numeric item's parts judged one by one: the weights part right, the number wrong or hedged ----

@pytest.mark.parametrize("text", [
    "Nothing changes, since the values play no part in the scores.",
    "The weights come from q and k, which did not change, so they stay. The output? Maybe 1/7, not sure.",
    "The attention weights are still [1/7, 2/7, 4/7]; the output rises by 7.",
])
def test_the_weights_part_right_and_the_number_wrong_is_partial(text):
    res = judge(VALUE_CHANGE, text)
    assert res.verdict == "partial" and "weights-unchanged" in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "Nothing changes in the output, and the weights shift to the first source.",
    "The weights still change a little and the output rises by 7.",
])
def test_the_weights_said_to_move_are_not_credited_by_these_readings(text):
    # Negative controls: "nothing changes in the output" is no word about the weights; "still change" moves them.
    res = judge(VALUE_CHANGE, text)
    assert res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("text", [
    "Nothing moves, since the output depends only on the queries and keys.",
    "No change at all, because attention only depends on q and k.",
])
def test_nothing_changes_because_the_output_ignores_the_values_is_wrong(text):
    # The reason given is a misconception of its own (the output is the values' weighted sum).
    res = judge(VALUE_CHANGE, text)
    assert res.verdict == "incorrect" and "output-ignores-values" in res.misconceptions, res.feedback
    # Negative control: the weights said to depend only on q and k is right.
    res = judge(VALUE_CHANGE, "The attention weights depend only on q and k, so they stay; the output rises by 1.")
    assert res.verdict == "correct", res.feedback


# ---- a misconception beside right points makes the answer wrong -------------------------------

WHAT_MIXES = QUIZ.item("what-mixes")


@pytest.mark.parametrize(("text", "wrong"), [
    ("Queries are matched against keys for the weights, then it selects the source with the largest weight "
     "and copies that value.", "selects-one"),
    ("q·k gives the weights; the head picks the position with the strongest score and returns its value vector.",
     "selects-one"),
    ("The weights are the cosine similarity between the two tokens; the values are mixed.", "cosine-similarity"),
])
def test_hard_selection_or_cosine_similarity_beside_right_points_is_wrong(text, wrong):
    res = judge(WHAT_MIXES, text)
    assert res.verdict == "incorrect" and wrong in res.misconceptions, res.feedback


@pytest.mark.parametrize("text", [
    "Query times key gives the weights, which is not cosine similarity; the values are mixed.",
    "Queries against keys give the weights; it does not just pick the biggest one, all the values are blended.",
])
def test_hard_selection_or_cosine_denied_is_not_held_against_the_answer(text):
    res = judge(WHAT_MIXES, text)
    assert res.verdict == "correct", res.feedback


# ---- a true property is not read as the misconception it resembles -----------------------------

ROW_SUMS = QUIZ.item("row-sums-vs-causality")


@pytest.mark.parametrize("text", [
    "Sums say nothing about causality. I'd look at whether everything above the diagonal is zero.",
    "Any softmax row sums to one, even a leaky one; the entries below the diagonal must be zero in the transposed "
    "view.",
])
def test_entries_off_the_diagonal_being_zero_is_not_zeroing_the_diagonal(text):
    res = judge(ROW_SUMS, text)
    assert "diagonal-must-be-zero" not in res.misconceptions and res.verdict == "partial", res.feedback


def test_zeroing_the_diagonal_itself_is_still_the_misconception():
    # Negative control.
    res = judge(ROW_SUMS, "Sums say nothing about causality; the diagonal must be exactly zero.")
    assert "diagonal-must-be-zero" in res.misconceptions and res.verdict == "incorrect", res.feedback


@pytest.mark.parametrize("text", [
    "Normalisation is all sums show. A broken mask sums to 1 as well.",
    "It says nothing about which positions contributed, only that softmax normalised.",
])
def test_why_sums_are_no_evidence_in_other_words(text):
    res = judge(ROW_SUMS, text)
    assert "sums-insufficient" in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "Edit the last token and then the earlier outputs should move, proving the flow works.",
    "Perturb a future input and the previous rows must change.",
])
def test_an_intervention_expecting_the_earlier_outputs_to_change_is_wrong(text):
    res = judge(ROW_SUMS, text)
    assert res.verdict == "incorrect" and "expects-earlier-change" in res.misconceptions, res.feedback


def test_the_same_intervention_expecting_no_change_is_not_that_misconception():
    # Negative controls: the right outcome, and the negative control's expected change.
    res = judge(ROW_SUMS, "Edit the last token and then the earlier outputs should stay the same.")
    assert "expects-earlier-change" not in res.misconceptions, res.feedback
    res = judge(ROW_SUMS, "Without the mask, edit the last token and then the earlier outputs should change.")
    assert "expects-earlier-change" not in res.misconceptions, res.feedback


# ---- a short contrast names both ranges ---------------------------------------------------------

WEIGHTS_VS_PROBS = QUIZ.item("weights-vs-probabilities")


@pytest.mark.parametrize("text", [
    "the first is per source position, the second over the vocabulary",
    "attention is per position; the probabilities are over words",
])
def test_a_short_contrast_of_the_two_ranges_is_correct(text):
    res = judge(WEIGHTS_VS_PROBS, text)
    assert res.verdict == "correct", res.feedback


def test_a_short_contrast_the_wrong_way_round_is_not_praised():
    # Negative controls: swapped, and words in the sequence are positions, not the vocabulary.
    res = judge(WEIGHTS_VS_PROBS, "one is per vocab token, the other is per position")
    assert res.verdict != "correct", res.feedback
    res = judge(WEIGHTS_VS_PROBS, "attention over positions; probabilities over words in the sequence")
    assert "over-vocabulary" not in res.matched, res.feedback


# ---- the query-key point in other words ------------------------------------------------------

@pytest.mark.parametrize("text", [
    "What a token is searching for gets matched against what the other tokens advertise; the values are mixed.",
    "Each query multiplied by each key, scaled and softmaxed, gives the weights; the values are averaged.",
])
def test_the_query_key_point_in_other_words(text):
    res = judge(WHAT_MIXES, text)
    assert res.verdict == "correct", res.feedback


@pytest.mark.parametrize("text", [
    "The query times the value gives the score, and the values are mixed.",
    "v multiplied by k gives the weights; the values are mixed.",
])
def test_a_query_or_key_multiplied_by_a_value_is_the_roles_swapped(text):
    # Negative control for "times" as a comparison: a value in the product is the swapped roles.
    res = judge(WHAT_MIXES, text)
    assert res.verdict == "incorrect" and "values-set-weights" in res.misconceptions, res.feedback


# ---- why the own token is fine, in other words --------------------------------------------------

DIAGONAL = QUIZ.item("diagonal")


@pytest.mark.parametrize("text", [
    "Since each position is permitted to read its own token.",
    "Masking it would hide something the model has anyway.",
    "Row i must predict token i+1; x i is okay to look at.",
])
def test_why_the_own_token_is_fine_in_other_words(text):
    res = judge(DIAGONAL, text)
    assert "own-token-known" in res.matched, res.feedback


@pytest.mark.parametrize("text", [
    "The model is not allowed to see its own token.",
    "Token i+1 is fine to see.",
])
def test_the_own_token_denied_or_the_next_token_allowed_is_not_credited(text):
    # Negative controls: the denial, and the next token (the target) said to be fine to see.
    res = judge(DIAGONAL, text)
    assert "own-token-known" not in res.matched, res.feedback


# ---- the saturation point in other words -------------------------------------------------------

@pytest.mark.parametrize("text", [
    "When a score dominates, softmax gives practically all the probability there, and learning stalls.",
    "Big scores: the gradient for the losing entries is ≈ 0. Dividing fixes it.",
])
def test_the_saturation_point_in_other_words(text):
    res = judge(QUIZ.item("scaling"), text)
    assert "softmax-saturates" in res.matched and res.verdict == "partial", res.feedback


def test_a_gradient_near_a_number_other_than_zero_is_not_saturation():
    # Negative control: "~0.5" is no vanishing gradient.
    res = judge(QUIZ.item("scaling"), "The gradient for each entry is ~0.5 and all the weight sits on every score.")
    assert "softmax-saturates" not in res.matched, res.feedback


# ---- the chapter's name for the weights, A ------------------------------------------------------

@pytest.mark.parametrize("text", ["A is unchanged, and the output moves by 1.", "Output up by 1. A remains."])
def test_the_weights_named_a_as_the_chapter_does(text):
    # The chapter writes A = softmax(S + M); "a" then a verb is no article.
    res = judge(VALUE_CHANGE, text)
    assert res.verdict == "correct", res.feedback


def test_an_article_before_a_noun_is_not_the_weights():
    # Negative control: "a value stays" is about a value.
    res = judge(VALUE_CHANGE, "A value stays the same; the output moves by 1.")
    assert "weights-unchanged" not in res.matched, res.feedback
