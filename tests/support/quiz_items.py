"""The chapter's quiz and its eight judged items, named once for the quiz judge's tests."""

from grader.quiz.judge import judge
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)
MIXES = QUIZ.item("what-mixes")
DIAGONAL = QUIZ.item("diagonal")
AXIS = QUIZ.item("softmax-axis")
SCALING = QUIZ.item("scaling")
ZERO = QUIZ.item("zero-queries")
CHANGE = QUIZ.item("value-change")
ROWS = QUIZ.item("row-sums-vs-causality")
WEIGHTS = QUIZ.item("weights-vs-probabilities")


def verdict(item, text: str) -> str:
    return judge(item, text).verdict
