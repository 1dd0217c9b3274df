"""Issue 26, the classes of error found on the eighth blind set once it became a tuning set (2026-12-02).

Each class is fixed by a general mechanism and each test here failed before its fix. The sentences marked
"blind8" are that set's answers; the others are written for these tests in other words, with labels of our own,
so that they check the mechanism, not one answer. Every rule that can make a verdict "correct" has negative
controls: a wrong answer in similar words stays not correct."""

import pytest
from support.quiz_items import AXIS, CHANGE, DIAGONAL, MIXES, ROWS, WEIGHTS, ZERO, verdict

from grader.quiz.judge import judge

# ---- false praise: the right letter beside another option said to give the same result -------------

@pytest.mark.parametrize("text", [
    "A (dim=-1), but honestly B would give the same result since the matrix is square",  # blind8
    "A, though dim=-2 gives the same answer here because the scores are T x T.",
    "A. B would produce identical weights anyway.",
    "A; axis -2 is equivalent for a square matrix.",
])
def test_another_option_said_to_give_the_same_result_is_a_wrong_claim(text):
    # Normalising the columns gives different numbers (the rows no longer sum to one): the item asks for the one
    # right axis, so calling another one equivalent is the misconception that the axes are interchangeable.
    assert verdict(AXIS, text) == "incorrect"


@pytest.mark.parametrize("text", [
    "A. B would not give the same result: it normalises the columns.",
    "A; dim=-2 gives a different answer even though the matrix is square.",
    "A, so that every row gives the same total, one.",
    "A (dim=-1): each row of the square matrix sums to one.",
])
def test_an_option_said_to_differ_costs_nothing(text):
    assert verdict(AXIS, text) == "correct"


# ---- numbers written as a vector over a divisor, slash-separated lists, terse labels ---------------

@pytest.mark.parametrize("text", [
    "softmax([0,0,0]) = [1,1,1]/3. o = 1/3*[2,0] + 1/3*[0,4] + 1/3*[6,2] = [8/3, 6/3] = [2.667, 2]",  # blind8
    "weights = (1, 1, 1)/3, output = (8, 6)/3",
    "weights: 0.33/0.33/0.33 output: (2.7, 2)",  # blind8
    "weights 0.333 / 0.333 / 0.333; output [2.67, 2.00]",
])
def test_vectors_over_a_divisor_and_slashed_lists_are_read(text):
    # "[1,1,1]/3" divides each entry; "0.33/0.33/0.33" lists three shares (a fraction has one slash).
    assert verdict(ZERO, text) == "correct", judge(ZERO, text).feedback


@pytest.mark.parametrize("text", [
    "weights: 0.14/0.29/0.57 output: (2.7, 2)",
    "weights = (1, 2, 4)/7, output = (8, 6)/3",
    "weights = (1, 1, 1)/3, output = (8, 6)",
    "weights: 0.33/0.33/0.33 output: (2.6, 2)",  # 2.6 is no rounding of 8/3
])
def test_wrong_numbers_in_the_same_notation_stay_wrong(text):
    assert verdict(ZERO, text) != "correct"


@pytest.mark.parametrize("text", [
    "w unchanged, d = +1",  # blind8
    "W: same. delta +1",
    "w stays, first coord +1",
])
def test_w_is_the_weights_in_terse_notation(text):
    assert verdict(CHANGE, text) == "correct", judge(CHANGE, text).feedback


@pytest.mark.parametrize("text", [
    "w changes, d = +1",
    "w unchanged, d = +7",
    "w shifts, first coord +1",
])
def test_terse_wrong_weights_or_change_stay_wrong(text):
    assert verdict(CHANGE, text) != "correct"


@pytest.mark.parametrize("text", [
    "uniform weights, 1/3 each, output would be [8, 6]/3... so [2.67, 3]",  # blind2, partial there
    "weights 1/3 each; output (8, 6)/3, so (2.67, 2.33)",
])
def test_the_vector_after_a_conclusion_is_the_answer(text):
    # The division is working; what "so" introduces is what the learner answers.
    assert verdict(ZERO, text) == "partial"


def test_working_before_a_right_conclusion_costs_nothing():
    assert verdict(ZERO, "weights 1/3 each; output (8, 6)/3, so (2.67, 2)") == "correct"


# ---- role reversal: a mixing verb whose object is the queries or the keys --------------------------

@pytest.mark.parametrize("text", [
    "q.k scores go through softmax to give the weights. then you mix the queries using them",  # blind8
    "Query-key dot products give the weights, which are used to average the keys.",
    "The weights come from q dot k, and then they blend the query vectors together.",
    "Softmax of the query-key scores gives the weights; the model then sums up the keys with them.",
])
def test_mixing_the_queries_or_keys_is_the_role_reversal(text):
    res = judge(MIXES, text)
    assert res.verdict == "incorrect", res.feedback
    assert "values-set-weights" in res.misconceptions


@pytest.mark.parametrize("text", [
    "The weights come from q dot k, and they mix the values, not the keys.",
    "Compute the weights by comparing queries with keys, then blend the values.",
    "Softmax of the query-key scores gives the weights; we then average the values and leave the queries alone.",
    "Matching each query against the keys gives the weights, which mix the value vectors.",
])
def test_mixing_the_values_beside_queries_and_keys_costs_nothing(text):
    assert verdict(MIXES, text) == "correct"


# ---- hedges: "not sure" is no denial, and a point said only under it is not made --------------------

@pytest.mark.parametrize("text", [
    "Q and K compatibility. not sure what is mixed, maybe the keys?",  # blind8
    "The weights come from the query-key dot products. I am not certain what gets mixed, probably the queries.",
    "Queries compared with keys give the scores; not sure what is averaged, perhaps the keys",
])
def test_a_guess_under_a_hedge_is_still_a_wrong_claim(text):
    assert verdict(MIXES, text) == "incorrect", judge(MIXES, text).feedback


@pytest.mark.parametrize("text", [
    "Intervention: modify the last position's input and make sure the outputs at earlier positions stay the same. "
    "(Row sums, not sure why they dont prove it.)",  # blind8
    "Change only the last input and check the earlier outputs stay identical. I'm not sure whether a leaky mask "
    "still gives rows summing to one.",
])
def test_a_point_said_only_under_a_hedge_is_not_made(text):
    assert verdict(ROWS, text) == "partial", judge(ROWS, text).feedback


@pytest.mark.parametrize("item,text", [
    (MIXES, "Not sure about the scaling, but the weights come from queries against keys and the values get mixed."),
    (ROWS, "Change only the last input and check the earlier outputs stay identical. A leaky mask still gives rows "
           "summing to one, I'm fairly sure."),
    (ROWS, "Change only the last input and check the earlier outputs stay identical; a leaky mask still gives rows "
           "summing to one, not sure about the exact numbers."),
])
def test_a_hedge_elsewhere_costs_nothing(item, text):
    assert verdict(item, text) == "correct", judge(item, text).feedback


# ---- false credit: nearness said to earn the weight, whatever the word order ------------------------

@pytest.mark.parametrize("text", [
    "Positions closest to the current token get the most weight, and the value vectors are mixed.",  # blind8
    "The nearest tokens receive the highest weights; the values are averaged.",
    "Tokens that are close by are given the largest weight and the values get blended.",
    "The most recent positions get more attention, and the output mixes the values.",
])
def test_nearness_earning_the_weight_is_a_wrong_claim(text):
    res = judge(MIXES, text)
    assert res.verdict == "incorrect", res.feedback
    assert "weights-from-position" in res.misconceptions


@pytest.mark.parametrize("text", [
    "The key closest to the query gets the most weight, and the value vectors are mixed.",
    "Weights come from matching queries against keys, not from how close the positions are; the values are mixed.",
    "The query is compared with every key, and the keys most similar to it get the most weight; values are mixed.",
])
def test_closeness_of_query_and_key_costs_nothing(text):
    res = judge(MIXES, text)
    assert res.verdict != "incorrect" and "weights-from-position" not in res.misconceptions, res.feedback


# ---- diagonal: the current token said to be the next one or the target ------------------------------

@pytest.mark.parametrize("text", [
    "The diagonal is the next token, so we need it to train the prediction.",  # blind8
    "The diagonal entry is the following word, which row i needs in order to learn.",
    "Position i's own token is the target, so the model has to see it.",
])
def test_the_diagonal_said_to_be_the_next_token_is_a_wrong_claim(text):
    assert verdict(DIAGONAL, text) == "incorrect", judge(DIAGONAL, text).feedback


@pytest.mark.parametrize("text", [
    "The diagonal is not the next token: row i's target is i+1, and token i is already known as input.",
    "The diagonal is the current token; the next token is the target, so seeing the diagonal leaks nothing.",
    "Including the diagonal is fine because the next token is the target and token i is already known.",
])
def test_the_diagonal_told_apart_from_the_target_costs_nothing(text):
    assert verdict(DIAGONAL, text) == "correct", judge(DIAGONAL, text).feedback


# ---- diagonal in terse notation: the target in apposition, "current token != target" ----------------

@pytest.mark.parametrize("text", [
    "j <= i allowed, diagonal = j == i. doesnt reveal target (i+1). + avoids empty rows -> NaN",  # blind8
    "current token != target. target is next. ok to see. also guarantees >= 1 allowed position per row",  # blind8
    "Own token isn't the target (the target is i+1), so it leaks nothing.",
    "diag = token i, which is not what row i predicts; the prediction is i+1. nothing hidden is revealed.",
])
def test_terse_target_and_own_token_points_are_read(text):
    assert verdict(DIAGONAL, text) == "correct", judge(DIAGONAL, text).feedback


@pytest.mark.parametrize("text", [
    "current token == target, so it must be masked.",
    "current token != target. ok to see.",  # the target itself is never named
    "doesnt reveal target (i). ok to see.",
])
def test_terse_wrong_or_missing_target_is_not_correct(text):
    assert verdict(DIAGONAL, text) != "correct"


# ---- diagonal: the first row left with nothing, in other words ------------------------------------

@pytest.mark.parametrize("text", [
    "Diagonal is included bc otherwise the first token cant attend anywhere (softmax undefined). "
    "The other rows would still have earlier positions.",  # blind8
    "Without it row 0 would have no allowed entry and the softmax would be undefined.",
    "Otherwise position 0 could not look at anything at all.",
])
def test_the_first_row_point_alone_is_partial(text):
    # The optional point made and no wrong claim: partial, as every labeller of this item has it.
    assert verdict(DIAGONAL, text) == "partial", judge(DIAGONAL, text).feedback


@pytest.mark.parametrize("text", [
    "Diagonal is included so that the first token can attend to the future.",
    "Otherwise the first token could not attend to the next token, which it needs to predict.",
])
def test_the_first_row_beside_a_leak_stays_incorrect(text):
    assert verdict(DIAGONAL, text) == "incorrect"


# ---- row sums: masking after the softmax said to keep rows summing to one --------------------------

INTERVENTION = "Change only the last input and check that the earlier outputs stay exactly the same."


@pytest.mark.parametrize("text", [
    "because the rows also sum to one when you mask after the softmax",  # blind8
    f"Masking the weights after softmax still leaves each row summing to 1, so sums can't detect it. {INTERVENTION}",
    f"If you apply the mask after the softmax the rows still add up to one. {INTERVENTION}",
])
def test_rows_masked_after_softmax_said_to_sum_to_one_is_a_wrong_claim(text):
    # Zeroing future weights after the softmax leaves rows that sum to less than one (0.14, 0.43, 1 in the lab).
    assert verdict(ROWS, text) == "incorrect", judge(ROWS, text).feedback


@pytest.mark.parametrize("text", [
    f"Masking after the softmax leaves rows that no longer sum to one; a leaky mask before it still sums to one. "
    f"{INTERVENTION}",
    f"The mask goes before the softmax; after the softmax every row sums to one even with a leak. {INTERVENTION}",
    f"Mask after the softmax and the rows sum to less than one, but a leaky mask still gives sums of one. {INTERVENTION}",
    # The same in symbols (found walking a learner through the quiz with blind9's #144, after blind9's one measure).
    f"A leaky mask still gives rows summing to 1. Masking after softmax gives sums < 1, that one you would catch. "
    f"{INTERVENTION}",
])
def test_masking_after_softmax_described_rightly_costs_nothing(text):
    assert verdict(ROWS, text) == "correct", judge(ROWS, text).feedback


# ---- row sums: the sums point and the intervention in looser or terser words ------------------------

@pytest.mark.parametrize("text", [
    "Row sums equal 1 in the zero-score bug too, so the check passes while the first position sees all 3 tokens.",  # blind8
    "The rows add up to 1 for the leaky mask as well, so that check cannot tell.",
    "A normalization-only test misses the bug. You should test for the absence of future influence.",  # blind8
    "A sum check would not catch the leak.",
])
def test_sums_point_in_looser_words_is_partial(text):
    assert verdict(ROWS, text) == "partial", judge(ROWS, text).feedback


@pytest.mark.parametrize("text", [
    "Rows summing to one proves the mask is causal.",
    "A sum check would catch the leak.",
])
def test_sums_said_to_catch_the_leak_earn_nothing(text):
    assert verdict(ROWS, text) != "correct"
    assert "sums-insufficient" not in judge(ROWS, text).matched


@pytest.mark.parametrize("text", [
    "Change a future token and see if the earlier outputs change. If they dont, the mask works.",  # blind8
    "Edit the last input and check whether earlier outputs move; if they do not, it is causal.",
    "Perturb only the final token and look at whether the earlier rows change. If not, the mask is fine.",
])
def test_an_intervention_with_its_verdict_in_a_condition_is_read(text):
    res = judge(ROWS, text)
    assert "intervention" in res.matched, res.feedback
    assert res.verdict == "partial"


def test_an_intervention_read_backwards_in_its_condition_is_not_credited():
    res = judge(ROWS, "Change a future token and see if the earlier outputs change. If they do, the mask works.")
    assert "intervention" not in res.matched and res.verdict != "correct"


@pytest.mark.parametrize("text", [
    "row sums measure normalization; causality = no dependence on future inputs. intervention: x2 = x with x[T-1] "
    "changed; assert out[:T-1] == out2[:T-1]; then remove the mask as a negative control, which should show a "
    "difference",  # blind8
    "sums only check normalisation. x[-1] modified -> y[:-1] == y_new[:-1] must hold.",
])
def test_an_intervention_in_code_notation_is_read(text):
    assert verdict(ROWS, text) == "correct", judge(ROWS, text).feedback


def test_code_that_compares_the_last_output_is_not_the_intervention():
    res = judge(ROWS, "sums only check normalisation. x[-1] modified -> y[-1] == y_new[-1] must hold.")
    assert res.verdict != "correct"


# ---- false praise: the attention map said to show the predicted word ------------------------------

RANGES = ("Attention weights are a distribution over positions in the sequence, used to mix values; next-token "
          "probabilities are over the vocabulary, from the output layer.")


@pytest.mark.parametrize("text", [
    "Attention weights sum to 1 like probabilities but over the T positions; the heatmap is the explanation of the "
    "answer, it shows which word the model predicts.",  # blind8
    f"{RANGES} The brightest cell of the attention map tells you what token comes next.",
    f"{RANGES} So the attention weights reveal which word will be output.",
])
def test_the_attention_map_said_to_show_the_prediction_is_a_wrong_claim(text):
    # A row says where a position reads from; which word comes next is decided later, by the output layer.
    assert verdict(WEIGHTS, text) == "incorrect", judge(WEIGHTS, text).feedback


@pytest.mark.parametrize("text", [
    f"{RANGES} The heatmap does not show which word the model predicts.",
    f"{RANGES} The heatmap shows which earlier words each position reads from.",
    RANGES,
])
def test_the_attention_map_read_as_routing_costs_nothing(text):
    assert verdict(WEIGHTS, text) == "correct", judge(WEIGHTS, text).feedback


# ---- attention said to mix information: the positions point in loose words -------------------------

@pytest.mark.parametrize("text", [
    "attention mixes information, its not a prediction. the prediction comes later.",  # blind8
    "Attention just blends content from around the sequence; it predicts nothing.",
    "The weights combine the information of the tokens.",
])
def test_attention_mixing_information_is_the_positions_point(text):
    res = judge(WEIGHTS, text)
    assert res.verdict == "partial" and "over-positions" in res.matched, res.feedback


def test_attention_mixing_the_prediction_earns_nothing():
    assert "over-positions" not in judge(WEIGHTS, "Attention mixes the predictions of the next word.").matched
