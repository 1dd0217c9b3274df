"""Recall cards on FSRS: deterministic schedules (no fuzz, fixed clock) and a state file that survives interruption."""

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Rating

from grader.quiz.cards import (
    CardsState,
    default_state_path,
    due_cards,
    load_state,
    make_scheduler,
    review,
    run_review,
)
from grader.quiz.load import DEFAULT_QUIZ, QuizFileError, load_quiz

ROOT = Path(__file__).resolve().parents[2]
T0 = datetime(2026, 10, 10, 9, 0, tzinfo=UTC)
QUIZ = load_quiz(DEFAULT_QUIZ)


@pytest.mark.parametrize("rating,delay", [
    # FSRS-6 defaults: learning steps 1 min and 10 min; Easy graduates at once.
    (Rating.Again, timedelta(minutes=1)),
    (Rating.Hard, timedelta(minutes=5, seconds=30)),
    (Rating.Good, timedelta(minutes=10)),
    (Rating.Easy, timedelta(days=8)),
])
def test_first_review_intervals(rating, delay):
    state = CardsState()
    assert review(QUIZ.cards[0], rating, state, make_scheduler(), T0) - T0 == delay


def test_sequence_is_deterministic_and_lapses_shorten():
    def walk():
        state, now, dues = CardsState(), T0, []
        for r in (Rating.Good, Rating.Good, Rating.Good, Rating.Again, Rating.Good):
            now = review(QUIZ.cards[0], r, state, make_scheduler(), now)
            dues.append(now)
        return dues
    dues = walk()
    assert dues == walk()
    assert [d - T0 for d in dues[:3]] == [timedelta(minutes=10), timedelta(days=2, minutes=10),
                                          timedelta(days=13, minutes=10)]
    assert dues[3] - dues[2] == timedelta(minutes=10), "a lapse goes back to a relearning step"


def test_due_cards_respect_the_clock():
    state = CardsState()
    assert len(due_cards(QUIZ, state, T0)) == len(QUIZ.cards), "new cards are due at once"
    review(QUIZ.cards[0], Rating.Good, state, make_scheduler(), T0)
    assert QUIZ.cards[0] not in due_cards(QUIZ, state, T0 + timedelta(minutes=9))
    assert QUIZ.cards[0] in due_cards(QUIZ, state, T0 + timedelta(minutes=10))


def test_interrupted_review_keeps_every_rating(tmp_path):
    path = tmp_path / "cards.json"
    answers = iter(["", "3", "", "1", ""])

    def ask(prompt):
        try:
            return next(answers)
        except StopIteration:
            raise KeyboardInterrupt from None

    with pytest.raises(KeyboardInterrupt):
        run_review(QUIZ, path, ask=ask, say=lambda s: None, now=lambda: T0)
    state = load_state(path)
    assert sorted(state.cards) == sorted(c.id for c in QUIZ.cards[:2])
    assert not list(tmp_path.glob(".cards.json.*")), "no temporary file left behind"


def test_state_path_precedence(tmp_path, monkeypatch):
    monkeypatch.setenv("GRADER_CARDS_STATE", str(tmp_path / "env.json"))
    assert default_state_path(tmp_path / "flag.json") == tmp_path / "flag.json"
    assert default_state_path(None) == tmp_path / "env.json"
    monkeypatch.delenv("GRADER_CARDS_STATE")
    assert default_state_path(None).name == "cards.json"


def test_corrupt_state_is_a_clear_error(tmp_path):
    path = tmp_path / "cards.json"
    path.write_text('{"cards": 3}')
    with pytest.raises(QuizFileError, match="unreadable card state"):
        load_state(path)


def test_cards_cli_with_fixed_clock(tmp_path):
    state = tmp_path / "cards.json"
    cmd = [sys.executable, "-m", "grader", "cards", "--state", str(state), "--now", "2026-10-10T09:00:00Z"]
    # A data directory of its own: diagnoses another test's `check` recorded would put their cards first.
    env = {k: v for k, v in os.environ.items() if k != "GRADER_RECENT_CARDS"} | {"GRADER_DATA_DIR": str(tmp_path / "d")}
    proc = subprocess.run(cmd + ["--limit", "2"], input="\n3\n\n4\n", capture_output=True, text=True, cwd=ROOT,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    assert "next review: 2026-10-10T09:10+00:00" in proc.stdout
    assert "next review: 2026-10-18T09:00+00:00" in proc.stdout
    # --limit 2 of 8 new cards: the session says what is left, not "All due cards reviewed".
    assert f"{len(QUIZ.cards) - 2} card(s) still due" in proc.stdout
    assert "All due cards reviewed" not in proc.stdout
    saved = json.loads(state.read_text())
    assert set(saved["cards"]) == {QUIZ.cards[0].id, QUIZ.cards[1].id}
    listing = subprocess.run(cmd + ["--list"], capture_output=True, text=True, cwd=ROOT, env=env)
    assert f"{QUIZ.cards[1].id}" in listing.stdout and "2026-10-18T09:00" in listing.stdout
    bad = subprocess.run(cmd[:-1] + ["yesterday"], capture_output=True, text=True, cwd=ROOT)
    assert bad.returncode == 2 and "not an ISO date-time" in bad.stderr


def test_review_without_limit_ends_with_all_reviewed(tmp_path):
    lines = iter(["", "4"] * len(QUIZ.cards))
    said = []
    run_review(QUIZ, tmp_path / "c.json", ask=lambda _: next(lines), say=said.append, now=lambda: T0)
    assert said[-1].strip() == "All due cards reviewed."


def test_again_comes_back_in_the_same_session(tmp_path):
    """Issue 26: a card rated Again (due in a minute) is shown again before the session ends."""
    clock = iter(T0 + timedelta(seconds=30 * i) for i in range(100))
    # Card 1: Again; card 2: Easy; then card 1 again (now due): Good, which moves it out of the session.
    lines = iter(["", "1", "", "4", "", "3"])
    said = []
    quiz = QUIZ.model_copy(update={"cards": QUIZ.cards[:2]})
    run_review(quiz, tmp_path / "c.json", ask=lambda _: next(lines), say=said.append, now=lambda: next(clock))
    fronts = [s for s in said if s.startswith("\n[")]
    assert len(fronts) == 3, said
    assert QUIZ.cards[0].front in fronts[2] and "again" in fronts[2], fronts
    state = load_state(tmp_path / "c.json")
    assert state.cards[QUIZ.cards[0].id].reviews == 2 and state.cards[QUIZ.cards[1].id].reviews == 1
    assert said[-1].strip() == "All due cards reviewed."


def test_a_card_rated_good_does_not_come_back(tmp_path):
    # Negative control: Good (due in ten minutes) and Easy leave the session.
    lines = iter(["", "3", "", "4"])
    said = []
    quiz = QUIZ.model_copy(update={"cards": QUIZ.cards[:2]})
    run_review(quiz, tmp_path / "c.json", ask=lambda _: next(lines), say=said.append, now=lambda: T0)
    assert len([s for s in said if s.startswith("\n[")]) == 2


def test_input_ending_mid_review_stops_cleanly(tmp_path):
    said = []
    lines = iter(["", "1"])

    def ask(_):
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None

    assert run_review(QUIZ, tmp_path / "c.json", ask=ask, say=said.append, now=lambda: T0) == 0
    assert said[-1] == "Stopped; progress saved."
