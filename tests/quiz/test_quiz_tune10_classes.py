"""Issue 26, the classes of error found on the tenth tuning set (tests/quiz/quiz_tune10_answers.yaml, 2026-12-02).

That set was a tuning set from the start, never a blind measure. Each class is fixed by a general mechanism and
each test here failed before its fix. The sentences marked "tune10" are that set's answers; the others are
written for these tests in other words, so that they check the mechanism, not one answer. Every class has
negative controls: a right answer in similar words that must stay right, or a wrong one that must stay wrong."""

from pathlib import Path

import pytest
from support.quiz_items import AXIS, CHANGE, DIAGONAL, MIXES, QUIZ, ROWS, SCALING, WEIGHTS, ZERO, verdict

from grader.quiz.agreement import blind_agreement
from grader.quiz.judge import judge

SATURATES = "Large scores make softmax nearly one-hot, and its gradients vanish."

# ---- a word of English is no typo of a quiz word ("with" is not "width") --------------------------


@pytest.mark.parametrize("text", [
    f"The scores grow with training. {SATURATES}",
    f"The dot products increase with every layer. {SATURATES}",
])
def test_with_is_no_misspelt_width(text):
    # "(grows|increases) (with|as) ... (width|...)" once read "with" as a typo of "width" and credited the
    # variance point for growth with anything at all.
    assert verdict(SCALING, text) == "partial", judge(SCALING, text).feedback


@pytest.mark.parametrize("text", [
    f"The scores get larger with d_k. {SATURATES}",  # "larger" an inflection of "large" still reads
    f"The variance grows with the width d_k. {SATURATES}",
    f"The dot products get large as the dimension grows. {SATURATES}",
    f"Std(q·k) = sqrt(d_k), so we divide by it. {SATURATES}",
])
def test_growth_with_width_still_reads(text):
    assert verdict(SCALING, text) == "correct", judge(SCALING, text).feedback


# ---- scaling: the scores said to grow with the sequence length, or to be made symmetric ----------


@pytest.mark.parametrize("text", [
    "The scores get bigger with longer sequences (more positions T), so we divide by the square root to compensate; "
    "otherwise softmax gets too peaky.",  # tune10: judged correct before, false praise
    f"The dot products grow with the sequence length T. {SATURATES}",
    f"Scores increase with the number of tokens, so we divide. {SATURATES}",
    "The variance grows with d_k, so dividing keeps it in check, and it also makes the query-key score "
    "symmetric.",  # tune10
    f"The variance grows with d_k. {SATURATES} Dividing also makes the score matrix symmetric.",
])
def test_growth_with_length_or_symmetry_is_a_wrong_claim(text):
    assert verdict(SCALING, text) == "incorrect", judge(SCALING, text).feedback


@pytest.mark.parametrize("text", [
    f"The variance of the dot product grows with d_k, not with the sequence length. {SATURATES}",
    f"The variance grows with d_k whatever the sequence length. {SATURATES}",
    f"The variance grows with d_k. {SATURATES} The scores are not symmetric anyway.",
])
def test_width_not_length_costs_nothing(text):
    assert verdict(SCALING, text) == "correct", judge(SCALING, text).feedback


# ---- what-mixes: queries averaged, position or the mask setting the weights ----------------------


@pytest.mark.parametrize("text", [
    "The weights are determined by the query-key dot product and then the queries of the allowed positions are "
    "averaged using those shares.",  # tune10
    "Queries and keys give the weights, and then the keys of every earlier token are blended.",
    "The position in the sequence determines the weights, with nearer tokens getting more weight; the values are "
    "mixed.",  # tune10
    "The distance between tokens decides the weights, and the values get averaged.",
    "The causal mask determines the weights: it gives equal weight to every earlier position and then mixes their "
    "values.",  # tune10
    "The mask sets the weights and the value vectors are blended.",
])
def test_other_vectors_or_setters_are_wrong_claims(text):
    assert verdict(MIXES, text) == "incorrect", judge(MIXES, text).feedback


@pytest.mark.parametrize("text", [
    "The query-key scores, masked and softmaxed, set the weights; the mask sets the weights of future positions to "
    "zero, and the values are mixed.",
    "Queries and keys decide the weights, whatever the position in the sequence; the values of the allowed "
    "positions are averaged.",
    "The weights come from each query dotted with the keys; the values of the allowed positions are averaged.",
])
def test_the_mask_hiding_positions_costs_nothing(text):
    assert verdict(MIXES, text) == "correct", judge(MIXES, text).feedback


# ---- weights-vs-probabilities: one token picked, weights over the vocabulary --------------------


@pytest.mark.parametrize("text", [
    "Attention weights pick the one token to copy forward, while next-token probabilities spread over the "
    "vocabulary.",  # tune10
    "The attention weights select a single position to read; next-token probabilities are over the vocabulary.",
    "Attention weights are a distribution over the vocabulary at each position, and next-token probabilities are "
    "just the last one of those.",  # tune10
    "The weights form a probability distribution over the vocabulary, one per position.",
])
def test_one_pick_or_the_vocabulary_for_the_weights_is_a_wrong_claim(text):
    assert verdict(WEIGHTS, text) == "incorrect", judge(WEIGHTS, text).feedback


@pytest.mark.parametrize("text", [
    "Attention weights blend every position rather than picking one token; next-token probabilities are over "
    "the vocabulary.",
    "Attention weights are a distribution over positions; the output layer picks one word from the vocabulary "
    "distribution.",
    "attention weights spread over the positions of the sequence, next-token probabilities spread over the whole "
    "vocabulary",
])
def test_a_pick_from_the_vocabulary_costs_nothing(text):
    assert verdict(WEIGHTS, text) == "correct", judge(WEIGHTS, text).feedback


# ---- row sums: symmetry and heat-map tests, the diagonal called the future ----------------------


@pytest.mark.parametrize("text", [
    "Row sums are not enough; look at the heatmap and check that the biggest weights are on the "
    "diagonal.",  # tune10
    "A leaky mask sums to one too. Verify that the largest attention sits along the diagonal.",
    "Row sums can't prove causality because softmax always sums to one. Test: check that the weight matrix is "
    "symmetric.",  # tune10
    "A leaky mask still sums to one, so instead test whether the attention matrix has symmetry.",
    "Because the rows include the diagonal, which is the future token, they always leak; the test is to remove the "
    "diagonal and see whether the sums still equal one.",  # tune10
    "Sums stay at one even with a leak, and the diagonal entries are the next tokens, so they leak.",
])
def test_wrong_tests_and_the_diagonal_as_future_are_wrong_claims(text):
    assert verdict(ROWS, text) == "incorrect", judge(ROWS, text).feedback


@pytest.mark.parametrize("text", [
    "A leaky mask still sums to one. Change only a future token and check the earlier outputs stay the same; the "
    "diagonal is not the future token, it is the current one.",
    "A zero-score mask sums to one as well. Change only the last input and check that the earlier outputs are "
    "unchanged; a symmetric matrix is not what to look for.",
])
def test_denials_beside_the_right_test_cost_nothing(text):
    assert verdict(ROWS, text) == "correct", judge(ROWS, text).feedback


# ---- diagonal: the target said to be token i, the diagonal for the row sums ---------------------


@pytest.mark.parametrize("text", [
    "The target at position i is token i itself, so the diagonal has to be visible for the loss to work. It also "
    "keeps row 0 from being empty.",  # tune10: undetermined before
    "Row i's label is token i, so it must be seen.",
    "The current token isn't the target, the next one is, so seeing it is fine; and the diagonal is what makes "
    "each row sum to one, without it the rows would sum to less than one.",  # tune10: undetermined before
    "The target is token i+1 and token i is already known; the diagonal is what guarantees that each row sums "
    "to 1.",  # judged correct before
])
def test_target_as_token_i_or_diagonal_for_sums_is_a_wrong_claim(text):
    assert verdict(DIAGONAL, text) == "incorrect", judge(DIAGONAL, text).feedback


@pytest.mark.parametrize("text", [
    "The target is the next token; the current token is already known. Without the diagonal the first row has no "
    "allowed source, so its weights could not sum to one (NaN).",
    "Row i's target is token i+1 and token i is already an input. The diagonal makes sure every row has "
    "something to attend to, so softmax can make each row sum to one.",
])
def test_the_first_row_argument_costs_nothing(text):
    assert verdict(DIAGONAL, text) == "correct", judge(DIAGONAL, text).feedback


# ---- value-change: the weights rebalancing, the output said unchanged ---------------------------


@pytest.mark.parametrize("text", [
    "The mask blocks the first value from the final position, so the weights rebalance and the output stays the "
    "same.",  # tune10
    "The weights renormalise and the final output is unchanged.",
    "The shares rebalance and the first output coordinate stays the same.",
])
def test_rebalanced_weights_and_unchanged_output_are_wrong(text):
    assert verdict(CHANGE, text) == "incorrect", judge(CHANGE, text).feedback


@pytest.mark.parametrize("text", [
    "The weights stay the same; the output's first coordinate goes up by 1 (7 x 1/7).",
    "weights unchanged since q and k are fixed, the output is not the same: +1",
    "The weights and the softmax stay the same, and the output rises by 1.",
])
def test_unchanged_weights_with_a_moving_output_stay_right(text):
    assert verdict(CHANGE, text) == "correct", judge(CHANGE, text).feedback


# ---- scaling: the growth with width in other words ----------------------------------------------


@pytest.mark.parametrize("text", [
    "wide q/k -> large dot products -> softmax almost one-hot -> tiny gradients. divide by root d_k to stop "
    "it",  # tune10
    "Dot products get bigger as the vectors get wider; big scores saturate softmax (nearly one-hot) and kill the "
    "gradients. Dividing by sqrt(d_k) controls that.",  # tune10
    f"The scores grow as the keys and queries get longer. {SATURATES}",
    "Var(q.k) = d_k under the paper's assumptions, so dividing by sqrt(d_k) brings it back to about 1; otherwise "
    "softmax goes sharp with vanishing gradients.",  # tune10
    "more dimensions means more terms added up, so the scores spread out more. too much spread and softmax "
    "basically picks one and learning stalls. the divide keeps it tame",  # tune10
    f"Summing more coordinate products gives bigger numbers for wider vectors. {SATURATES}",
    "The variance grows with d_k; unscaled, softmax basically picks one key and training stalls.",
])
def test_growth_with_width_in_other_words(text):
    assert verdict(SCALING, text) == "correct", judge(SCALING, text).feedback


@pytest.mark.parametrize("text", [
    f"Var(q.k) = sqrt(d_k), so we divide by that. {SATURATES}",
    f"Var(q.k) = d_k^2. {SATURATES}",
    f"The scores grow as the sequences get longer. {SATURATES}",
])
def test_the_variance_written_as_a_function_can_still_be_wrong(text):
    assert verdict(SCALING, text) == "incorrect", judge(SCALING, text).feedback


@pytest.mark.parametrize("text", [
    "Because adding up more coordinate products gives bigger numbers the wider the vectors are.",  # tune10: partial
])
def test_growth_alone_is_partial(text):
    assert verdict(SCALING, text) == "partial", judge(SCALING, text).feedback


# ---- row sums: the leak that passes the sum check, and a poke at a later input -------------------


@pytest.mark.parametrize("text", [
    "Probably because even a leaking mask gives rows that add to one, so the check can't see the leak. I'd change "
    "only the future input and see if any earlier output moves; it shouldn't.",  # tune10
    "Normalisation and no-future-influence are different properties; a broken mask with zeros instead of -inf "
    "passes the sum check. Change only a future token and assert the prefix outputs are unchanged.",  # tune10
    "A zero-score mask fools the row-sum check. Change the last token and check the earlier outputs stay the same.",
    "sums tell you the shares add up, not where they come from. so poke something later in the sequence and make "
    "sure nothing before it moves",  # tune10
    "Row sums only say the weights add up, not which positions they come from. Nudge the final input and check "
    "that the earlier outputs are unchanged.",
])
def test_sums_and_intervention_in_other_words(text):
    assert verdict(ROWS, text) == "correct", judge(ROWS, text).feedback


@pytest.mark.parametrize("text", [
    "A broken mask does not pass the sum check. Change the last token and check earlier outputs stay the same.",
    "sums tell you the shares add up, and where they come from. so poke something later in the sequence and make "
    "sure nothing before it moves",
    "A leaking mask sums to one. Poke the first token and check that the later outputs stay the same.",  # backwards
])
def test_a_wrong_or_missing_half_keeps_it_from_correct(text):
    assert verdict(ROWS, text) != "correct", judge(ROWS, text).feedback


# ---- diagonal: seeing the own token said to give nothing away; a denial heading a colon -----------


@pytest.mark.parametrize("text", [
    "No leak: row i predicts token i+1 and j=i is already known. Keeps at least one allowed entry per row (no "
    "all-masked row, no NaN).",  # tune10
    "I think it's because the token at position i isn't what we're trying to predict (the next one is), so it's "
    "fair to see it. I believe it also stops the first row from being fully masked, which would give NaN.",  # tune10
    "the thing im trying to guess is one step ahead, so seeing the word im standing on gives nothing away, plus the "
    "very first spot would otherwise have zero legal sources and the normalising would blow up",  # tune10
    "Because the target at position i is the token at i+1, not the token at i. Seeing your own input token doesn't "
    "give away the answer, and it also means every row, including the first, has at least one allowed source so "
    "softmax isn't undefined.",  # tune10
    "Not cheating: the model predicts the next token; looking at the current token reveals nothing.",
])
def test_own_token_and_target_in_other_words(text):
    assert verdict(DIAGONAL, text) == "correct", judge(DIAGONAL, text).feedback


@pytest.mark.parametrize("text", [
    "Seeing your own token gives away the answer.",
    "Row i's target is token i+1, and seeing the current token reveals the answer.",
    "So that every row has at least one allowed entry and the softmax doesn't give NaN.",  # blind4: incorrect
])
def test_a_leak_or_the_remark_alone_stays_wrong(text):
    assert verdict(DIAGONAL, text) == "incorrect", judge(DIAGONAL, text).feedback


@pytest.mark.parametrize("text", [
    "No: row i must see token i+1 to predict it.",
])
def test_a_denial_heading_a_colon_takes_nothing_back(text):
    # "No leak: ..." and "No: ..." answer the question; the claim after the colon is asserted.
    assert verdict(DIAGONAL, text) == "incorrect", judge(DIAGONAL, text).feedback


@pytest.mark.parametrize("text", [
    "The variance grows with d_k, so we divide.",
    "not sure: maybe the variance grows with d_k, so we divide.",
])
def test_growth_alone_stays_partial_and_a_doubt_keeps_its_reach(text):
    assert verdict(SCALING, text) in ("partial", "incorrect"), judge(SCALING, text).feedback


# ---- numbers and letters: a share "apiece", a letter set aside by "rather than" ------------------


@pytest.mark.parametrize("text,expected", [
    ("weights: a third apiece; output: (4, 3)", "partial"),  # tune10: the weights right, the output wrong
    ("weights 0.33 per source, output [2.67, 2]", "correct"),
])
def test_a_share_said_apiece_stands_for_every_share(text, expected):
    assert verdict(ZERO, text) == expected, judge(ZERO, text).feedback


def test_a_wrong_share_apiece_stays_wrong():
    assert verdict(ZERO, "weights: a seventh apiece; output: (4, 3)") == "incorrect"


@pytest.mark.parametrize("text", [
    "It's A rather than B: normalise within each row, over the sources.",  # tune10
    "A instead of C.",
    "A rather than B.",
])
def test_a_letter_after_rather_than_is_set_aside(text):
    assert verdict(AXIS, text) == "correct", judge(AXIS, text).feedback


@pytest.mark.parametrize("text", ["B rather than A, over the receiving positions", "Rather than A, it is B."])
def test_the_letter_kept_under_a_contrast_is_the_pick(text):
    assert verdict(AXIS, text) == "incorrect"


# ---- analogies: what one spot looks for lining up with what another advertises; "each spot's info" ---


@pytest.mark.parametrize("item,text", [
    (MIXES, "how well what this spot is looking for lines up with what each earlier spot advertises sets the "
            "shares; the stuff actually handed over and blended is each spot's own delivery package"),  # tune10
    (WEIGHTS, "weights = how much of each earlier spot's info to blend in. next-token probs = how likely each "
              "possible word in the dictionary is to come next, worked out at the very end."),  # tune10
])
def test_analogies_in_other_words(item, text):
    assert verdict(item, text) == "correct", judge(item, text).feedback


@pytest.mark.parametrize("item,text", [
    (MIXES, "what this spot is looking for lines up with what each earlier spot advertises, and the keys are what "
            "gets blended"),
    (WEIGHTS, "weights = how much of each token's info to blend in. next-token probs are over the positions too."),
])
def test_analogies_beside_a_wrong_claim_stay_wrong(item, text):
    assert verdict(item, text) == "incorrect"


# ---- row sums: unchanged weights said to prove unchanged outputs ---------------------------------


@pytest.mark.parametrize("text", [
    "A leaky row sums to one, so the sum alone isn't enough. Change a future input and check that the earlier rows' "
    "attention weights stay the same; if the weights are unchanged the outputs must be too.",  # tune10
    "Sums are one even with a leak. Same weights mean same outputs, so change the last token and compare the earlier "
    "weights.",
])
def test_weights_said_to_settle_the_outputs_is_a_wrong_claim(text):
    assert verdict(ROWS, text) == "incorrect", judge(ROWS, text).feedback


def test_checking_the_outputs_themselves_stays_right():
    text = ("A leaky mask sums to one as well. Change a future input and check that the earlier outputs stay the "
            "same, weights and all.")
    assert verdict(ROWS, text) == "correct", judge(ROWS, text).feedback


# ---- the tuning set's floor ----------------------------------------------------------------------

# quiz_tune10_answers.yaml is a TUNING set from the start (never a blind measure): 176 answers written and labelled
# by a helper who read only the chapter and the questions. First contact, before any tuning on it: 141/176 = 80.1%
# three ways, correct-or-not 157/176, 4 false praise, 2 undetermined. The floors are what the judge reaches after
# the classes above were fixed, which is no blind estimate. Its three judged correct against a partial label are
# label policy kept as other sets rule (docs/quiz.md): two diagonal answers with only the target-is-next point and
# "one mixes the context somehow, the other predicts words from the vocabulary".
TUNE10 = Path(__file__).resolve().parent / "quiz_tune10_answers.yaml"


def test_tune10_floor():
    result = blind_agreement(QUIZ, TUNE10)
    print("\n" + "\n".join(result.lines("quiz_tune10_answers.yaml (a tuning set)")))
    assert result.agree >= 171
    assert result.binary >= 172
    assert result.false_praise <= 3
    assert result.undetermined == 0


# ---- found while writing the controls above: a backwards test said as "nothing after it moves" --------


@pytest.mark.parametrize("text", [
    "A leaking mask sums to one, so change an earlier token and make sure nothing after it moves.",  # judged correct
    "A leaking mask sums to one, so poke an earlier token and check the outputs after it stay the same.",
])
def test_an_earlier_change_checked_after_it_is_backwards(text):
    assert verdict(ROWS, text) == "incorrect", judge(ROWS, text).feedback


def test_a_later_change_checked_before_it_stays_right():
    text = "A leaking mask sums to one, so change the last token and make sure nothing before it moves."
    assert verdict(ROWS, text) == "correct", judge(ROWS, text).feedback
