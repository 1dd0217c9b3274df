"""From a bug to the card that fixes the idea (issue 19, item 10): each misconception names its recall
cards and quiz items, the report carries them, and `grader cards` reviews them before the others."""

from __future__ import annotations

from datetime import UTC, datetime

from grader.diagnosis import misconceptions as mc
from grader.quiz.cards import CardsState, due_cards, load_recent, record_recent, run_review
from grader.quiz.load import DEFAULT_QUIZ, load_quiz

QUIZ = load_quiz(DEFAULT_QUIZ)
T0 = datetime(2026, 10, 10, 9, 0, tzinfo=UTC)


def test_every_card_and_quiz_item_a_misconception_names_exists():
    cards, items = {c.id for c in QUIZ.cards}, {i.id for i in QUIZ.items}
    for m in mc.DECLARED:
        assert set(m.cards) <= cards, (m.id, set(m.cards) - cards)
        assert set(m.quiz) <= items, (m.id, set(m.quiz) - items)
    # The mask, scale, axis and head bugs each lead somewhere: the ideas the quiz covers.
    for mid in ("zero_fill_mask", "mask_after_softmax", "no_mask", "diagonal_excluded", "missing_scale",
                "wrong_scale", "softmax_wrong_axis", "head_wiring"):
        assert mc.MISCONCEPTIONS[mid].cards or mc.MISCONCEPTIONS[mid].quiz, mid


def test_cards_tied_to_recent_bugs_come_first(tmp_path):
    path = tmp_path / "recent.json"
    assert load_recent(path) == []
    record_recent(["card-mask-before-softmax"], path)
    record_recent(["card-mechanism-scaling", "card-mask-before-softmax"], path)
    assert load_recent(path) == ["card-mechanism-scaling", "card-mask-before-softmax"]
    due = due_cards(QUIZ, CardsState(), T0, load_recent(path))
    assert [c.id for c in due[:2]] == ["card-mechanism-scaling", "card-mask-before-softmax"]
    assert {c.id for c in due} == {c.id for c in QUIZ.cards}  # an order, nothing left out
    assert [c.id for c in due_cards(QUIZ, CardsState(), T0)] == [c.id for c in QUIZ.cards]  # none recent: quiz order


def test_an_unreadable_record_costs_only_the_order(tmp_path):
    path = tmp_path / "recent.json"
    path.write_text("{not json", encoding="utf-8")
    assert load_recent(path) == []
    record_recent(["card-mask-diagonal"], path)
    assert load_recent(path) == ["card-mask-diagonal"]


def test_the_review_starts_with_them(tmp_path):
    said: list[str] = []
    run_review(QUIZ, tmp_path / "cards.json", ask=lambda _: "q", say=said.append, now=lambda: T0,
               first=["card-mask-diagonal"])
    assert "First the 1 tied to what your recent checks found." in said
    assert any("Why does the causal mask allow the diagonal?" in line for line in said)


def test_check_records_the_cards_of_what_it_found(tmp_path, monkeypatch, capsys):
    from pathlib import Path

    from grader.cli import main

    recent = tmp_path / "recent.json"
    monkeypatch.setenv("GRADER_RECENT_CARDS", str(recent))
    monkeypatch.setenv("GRADER_HINT_STATE", str(tmp_path / "hints.json"))
    example = Path(__file__).resolve().parents[2] / "examples" / "submission.py"  # the zero fill
    assert main(["check", str(example)]) == 0
    assert "Practise the idea: recall card card-mask-negative-infinity" in capsys.readouterr().out
    assert load_recent(recent) == ["card-mask-negative-infinity"]
