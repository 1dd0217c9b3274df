"""Recall cards on an FSRS schedule (the ``fsrs`` package); state is one small JSON file."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grader.paths import atomic_write_text, state_path
from grader.quiz.load import QuizFileError
from grader.quiz.models import Card, Quiz

ENV_STATE = "GRADER_CARDS_STATE"

RATINGS = {"1": Rating.Again, "2": Rating.Hard, "3": Rating.Good, "4": Rating.Easy,
           "again": Rating.Again, "hard": Rating.Hard, "good": Rating.Good, "easy": Rating.Easy}


class CardState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fsrs: dict = Field(description="fsrs.Card.to_dict() output.")
    reviews: int = 0


class CardsState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    cards: dict[str, CardState] = Field(default_factory=dict)


def default_state_path(explicit=None) -> Path:
    return state_path(explicit, ENV_STATE, "cards.json")


def load_state(path: Path) -> CardsState:
    if not path.exists():
        return CardsState()
    try:
        return CardsState.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError, OSError) as exc:
        first = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise QuizFileError(f"{path}: unreadable card state ({first}); move it aside to start over") from None


def save_state(path: Path, state: CardsState) -> None:
    atomic_write_text(path, json.dumps(state.model_dump(), indent=2, sort_keys=True) + "\n")


# The recall cards tied to the misconceptions `check` found lately (grader/diagnosis/misconceptions.py
# declares them), most recent first: `cards` reviews those of them that are due before the others.
ENV_RECENT = "GRADER_RECENT_CARDS"
RECENT_MAX = 20


class RecentCards(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    cards: list[str] = Field(default_factory=list, max_length=RECENT_MAX)


def recent_path(explicit=None) -> Path:
    return state_path(explicit, ENV_RECENT, "recent_cards.json")


def load_recent(path: Path) -> list[str]:
    """The recorded card ids; nothing when the file is missing or unreadable (an order, never an error)."""
    try:
        return RecentCards.model_validate_json(path.read_text(encoding="utf-8")).cards
    except (ValidationError, ValueError, OSError):
        return []


def record_recent(cards: list[str], path: Path) -> None:
    """Put the cards of the diagnoses just shown first; a failure to write costs only the order."""
    if not cards:
        return
    merged = list(dict.fromkeys([*cards, *load_recent(path)]))[:RECENT_MAX]
    try:
        atomic_write_text(path, RecentCards(cards=merged).model_dump_json(indent=2) + "\n")
    except OSError:
        pass


def _fsrs_card(card: Card, state: CardsState, now: datetime) -> FsrsCard:
    saved = state.cards.get(card.id)
    if saved is not None:
        return FsrsCard.from_dict(saved.fsrs)
    # A stable integer id (fsrs wants one) and due "now": a new card is due at once.
    return FsrsCard(card_id=zlib.crc32(card.id.encode()), due=now)


def due_cards(quiz: Quiz, state: CardsState, now: datetime, first: list[str] | tuple[str, ...] = ()) -> list[Card]:
    """Due cards, those in `first` (recent misconceptions' cards) first in its order, then quiz order;
    new cards count as due."""
    rank = {cid: i for i, cid in enumerate(first)}
    due = [c for c in quiz.cards if _fsrs_card(c, state, now).due <= now]
    return sorted(due, key=lambda c: rank.get(c.id, len(rank)))


def next_card(quiz: Quiz, state: CardsState, now: datetime, again: list[str] | tuple[str, ...] = (),
              first: list[str] | tuple[str, ...] = ()) -> tuple[Card, bool] | None:
    """The next card of a sitting and whether it is shown early: the first due card; when none is, the first
    rated Again in this sitting (`again`), a little before it is due, as the terminal's queue shows it last
    (Anki's "learn ahead"). None: nothing to review now."""
    due = due_cards(quiz, state, now, first)
    if due:
        return due[0], False
    ahead = [c for c in quiz.cards if c.id in again]
    return (ahead[0], True) if ahead else None


def next_due(quiz: Quiz, state: CardsState, now: datetime) -> datetime | None:
    """When the soonest card is due (None: the quiz has no cards)."""
    return min((_fsrs_card(c, state, now).due for c in quiz.cards), default=None)


def review(card: Card, rating: Rating, state: CardsState, scheduler: Scheduler, now: datetime) -> datetime:
    """Apply one rating; returns the next due time. The caller saves the state."""
    fcard = _fsrs_card(card, state, now)
    fcard, _log = scheduler.review_card(fcard, rating, review_datetime=now)
    previous = state.cards.get(card.id)
    state.cards[card.id] = CardState(fsrs=fcard.to_dict(), reviews=(previous.reviews if previous else 0) + 1)
    return fcard.due


def make_scheduler(fuzz: bool = False) -> Scheduler:
    # Fuzzing spreads out cards introduced together; with a handful of cards it only costs determinism.
    return Scheduler(enable_fuzzing=fuzz)


def schedule_table(quiz: Quiz, state: CardsState, now: datetime) -> list[tuple[str, str, int]]:
    rows = []
    for c in quiz.cards:
        fc = _fsrs_card(c, state, now)
        saved = state.cards.get(c.id)
        rows.append((c.id, fc.due.isoformat(timespec="minutes"), saved.reviews if saved else 0))
    return rows


def _ask(ask: Callable[[str], str], prompt: str) -> str:
    try:
        return ask(prompt).strip().lower()
    except EOFError:  # input ended (Ctrl-D, a pipe run dry): stop as "q" does, everything rated is saved
        return "q"


def run_review(
    quiz: Quiz,
    path: Path,
    *,
    ask: Callable[[str], str],
    say: Callable[[str], None],
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    scheduler: Scheduler | None = None,
    limit: int | None = None,
    first: list[str] | tuple[str, ...] = (),
) -> int:
    """Interactive review; saves after every rating so quitting (or a crash) loses nothing. Cards in
    `first` (those of the misconceptions `check` found lately) come before the others."""
    scheduler = scheduler or make_scheduler()
    state = load_state(path)
    due = due_cards(quiz, state, now(), first)[:limit]
    if not due:
        upcoming = next_due(quiz, state, now())
        say("No cards due." + (f" Next one due {upcoming.isoformat(timespec='minutes')}." if upcoming else ""))
        return 0
    say(f"{len(due)} card(s) due. Answer in your head, press Enter to reveal; q quits.")
    if tied := [c for c in due if c.id in first]:
        say(f"First the {len(tied)} tied to what your recent checks found.")
    queue = list(due)
    shown = 0
    while queue:
        card = queue.pop(0)
        shown += 1
        again = shown > len(due)
        say(f"\n[{min(shown, len(due))}/{len(due)}{' again' if again else ''}] ({card.topic}) {card.front}")
        if _ask(ask, "Enter to reveal> ") in ("q", ":q", "quit"):
            say("Stopped; progress saved.")
            return 0
        say(f"  {card.back}\n  (reread: {card.section})")
        while True:
            answer = _ask(ask, "Rate 1 Again, 2 Hard, 3 Good, 4 Easy> ")
            if answer in ("q", ":q", "quit"):
                say("Stopped; progress saved.")
                return 0
            if answer in RATINGS:
                break
            say("Type 1, 2, 3 or 4 (or q to quit).")
        when = review(card, RATINGS[answer], state, scheduler, now())
        save_state(path, state)
        say(f"  next review: {when.isoformat(timespec='minutes')}")
        if RATINGS[answer] == Rating.Again:
            # Forgotten: due again within minutes, so it comes back in this session, after the cards ahead of it
            # (shown a little early when nothing else is left, as Anki's "learn ahead" does).
            queue.append(card)
    # Counted again: --limit may have left cards.
    left = len(due_cards(quiz, state, now()))
    say(f"\n{left} card(s) still due; run the cards again to review them." if left else "\nAll due cards reviewed.")
    return 0
