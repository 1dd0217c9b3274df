"""The interactive quiz: prompt, prediction, verdict with per-point feedback, at most one follow-up.

Progress is saved after every item, so quitting (":q", Ctrl-D) and running again resumes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from grader.paths import atomic_write_text, state_path
from grader.quiz.judge import ItemResult, chosen_option, follow_up_answered, judge
from grader.quiz.load import QuizFileError
from grader.quiz.models import ChoiceItem, NumericItem, Quiz, SelfItem
from grader.report.view import points_text

ENV_SESSION = "GRADER_QUIZ_SESSION"
QUIT = {":q", ":quit"}
SKIP = {":s", ":skip"}
SELF_RATINGS = {"1": "missed", "2": "partly", "3": "got it"}


class Entry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    answer: str | None
    result: ItemResult
    follow_up: str | None = None
    follow_up_answer: str | None = None
    follow_up_ok: bool | None = None
    self_rating: str | None = None


class SessionState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int = 1
    chapter: str
    entries: dict[str, Entry] = Field(default_factory=dict)


def default_session_path(explicit=None) -> Path:
    return state_path(explicit, ENV_SESSION, "quiz-session.json")


def _load(path: Path, quiz: Quiz) -> SessionState:
    if not path.exists():
        return SessionState(chapter=quiz.chapter)
    try:
        state = SessionState.model_validate_json(path.read_text(encoding="utf-8"))
    except (ValidationError, ValueError, OSError):
        raise QuizFileError(f"{path}: unreadable quiz session; rerun with --restart to start over") from None
    if state.chapter != quiz.chapter:
        raise QuizFileError(f"{path}: session belongs to {state.chapter}; rerun with --restart")
    return state


def _save(path: Path, state: SessionState) -> None:
    atomic_write_text(path, json.dumps(state.model_dump(mode="json"), indent=2) + "\n")


class _Quit(Exception):
    pass


def run_session(
    quiz: Quiz,
    path: Path,
    *,
    ask: Callable[[str], str],
    say: Callable[[str], None],
    restart: bool = False,
) -> int:
    state = SessionState(chapter=quiz.chapter) if restart else _load(path, quiz)
    todo = [i for i in quiz.items if i.id not in state.entries]
    done = len(quiz.items) - len(todo)
    if not todo:
        _summary(quiz, state, say)
        say("Quiz finished; run with --restart to take it again.")
        return 0
    if done:
        say(f"Resuming: {done} of {len(quiz.items)} items done (--restart starts over).")
    say("Predict before you check. Commands: :s skips an item, :q saves and quits.")

    def prompt(label: str) -> str:
        try:
            text = ask(label)
        except EOFError:
            raise _Quit from None
        if text.strip().lower() in QUIT:
            raise _Quit
        return text

    try:
        for n, item in enumerate(todo, done + 1):
            say(f"\n[{n}/{len(quiz.items)}] {item.id}\n{item.prompt}")
            if isinstance(item, ChoiceItem):
                for opt in item.options:
                    say(f"  {opt.label}) {opt.text}")
            state.entries[item.id] = _ask_item(item, prompt, say)
            _save(path, state)
    except _Quit:
        _save(path, state)
        say("\nSaved; run the quiz again to resume.")
        return 0
    _summary(quiz, state, say)
    return 0


def _ask_item(item, prompt, say) -> Entry:
    if isinstance(item, SelfItem):
        prompt("Explain it in your own words (aloud or typed), then press Enter> ")
        say(f"Model answer: {item.explanation}\nCheck:")
        for c in item.checklist:
            say(f"  - {c}")
        while (rating := prompt("Rate yourself: 1 missed it, 2 partly, 3 got it> ").strip()) not in SELF_RATINGS:
            say("Type 1, 2 or 3.")
        return self_rated(item, rating)
    answer = prompt("Your prediction> ")
    while (why := choice_retry(item, answer)) is not None:
        say(f"  {why}")
        answer = prompt("Your prediction> ")
    entry = answered(item, answer)
    res = entry.result
    say(f"Verdict: {res.verdict} ({points_text(res.score, res.max_score)})")
    for line in res.feedback.splitlines():
        say(f"  {line}")
    if entry.follow_up is not None:
        reply = prompt(f"Follow-up: {entry.follow_up}\n> ")
        say(f"  {reply_to_follow_up(item, entry, reply)}")
    if res.verdict != "correct":
        say(f"Model answer: {item.explanation}\n(reread: {item.section})")
    return entry


# The steps of one item, shared by the terminal session above and the browser's (grader/serve/learn.py).

def self_rated(item: SelfItem, rating: str) -> Entry:
    """The explain-it-back item, rated by the learner ("1", "2" or "3", a key of SELF_RATINGS)."""
    rated = SELF_RATINGS[rating]
    res = judge(item, None).model_copy(update={"feedback": f"self-rated: {rated}"})
    return Entry(answer=None, result=res, self_rating=rated)


def choice_retry(item, answer: str) -> str | None:
    """Why a choice answer is asked again instead of judged (it names no option, or several); None: judge it.
    Not a verdict yet: an answer that names no option is asked again, not marked wrong."""
    if isinstance(item, ChoiceItem) and answer.strip() and answer.strip().lower() not in SKIP and \
            len(chosen_option(item, answer)) != 1:
        return judge(item, answer).feedback.removeprefix("✗ ")
    return None


def answered(item, answer: str) -> Entry:
    """The verdict on an answer (":s" or nothing skips it), with the one follow-up question it asks, if any,
    not yet replied to."""
    if answer.strip().lower() in SKIP:
        answer = ""
    res = judge(item, answer)
    point = _follow_up_point(item, res) if answer else None
    return Entry(answer=answer or None, result=res, follow_up=point.follow_up if point is not None else None)


def reply_to_follow_up(item, entry: Entry, reply: str) -> str:
    """Judges the reply to `entry`'s follow-up by that question's own rubric, records it, and says the result."""
    point = next(k for k in item.key_points if k.follow_up == entry.follow_up)
    entry.follow_up_answer = reply
    entry.follow_up_ok = follow_up_answered(point, reply, item.vocabulary)
    return follow_up_said(item, entry)


def follow_up_said(item, entry: Entry) -> str:
    """What the learner is told of their reply to the follow-up (the point, or what it missed)."""
    point = next(k for k in item.key_points if k.follow_up == entry.follow_up)
    return "✓ " + point.text if entry.follow_up_ok else "✗ " + (point.follow_up_feedback or point.feedback)


def _follow_up_point(item, res: ItemResult):
    """One missing key point to probe: a required one first. Numbers and misconceptions get none."""
    if res.verdict in ("correct", "unanswered") or res.misconceptions:
        return None
    if res.question:  # what the judge could not decide is asked first, numbers or not
        return next(k for k in getattr(item, "key_points", []) if k.follow_up == res.question)
    if isinstance(item, NumericItem) and any(t.name in res.missing for t in item.targets):
        return None
    points = [k for k in getattr(item, "key_points", []) if k.id in res.missing and k.follow_up]
    # The point the judge could not decide is the one it asks about; otherwise a required one first.
    points.sort(key=lambda k: (k.follow_up != res.question, not k.required))
    return points[0] if points else None


def summary(quiz: Quiz, state: SessionState) -> tuple[float, float, list[tuple[str, str]]]:
    """The score over the scored items, out of what they were worth, and each answered item's verdict
    (or self-rating), in quiz order."""
    scored = [e.result for e in state.entries.values() if e.result.verdict != "self"]
    rows = [(item.id, e.self_rating or e.result.verdict) for item in quiz.items
            if (e := state.entries.get(item.id)) is not None]
    return sum(r.score for r in scored), sum(r.max_score for r in scored), rows


def _summary(quiz: Quiz, state: SessionState, say) -> None:
    total, out_of, rows = summary(quiz, state)
    say(f"\nScore: {points_text(total, out_of)}")
    for item_id, said in rows:
        say(f"  {item_id}: {said}")
