"""The chapter's quiz and recall cards in the browser, judged and scheduled by the terminal's own steps
(grader/quiz/session.py, grader/quiz/cards.py).

Who: anyone signed in (a student, the instructor), and, where the course file says `self_learners: true`,
anyone at all: a visitor's first page gives them a random cookie; their CSRF token is derived from it
(`tokens.visitor_csrf`), so a visit writes nothing. Progress is kept in the store per learner
("student:KEY", "instructor:", "visitor:" and the cookie's hash), from their first answer or rating, so
what one visitor does never reaches another's progress."""

from __future__ import annotations

import re
import secrets
from functools import cache
from typing import NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from grader.quiz.cards import RATINGS, CardsState, due_cards, make_scheduler, next_card, next_due, review
from grader.quiz.load import DEFAULT_QUIZ, load_quiz
from grader.quiz.models import ChoiceItem, Quiz, SelfItem
from grader.quiz.session import (
    SELF_RATINGS,
    Entry,
    SessionState,
    answered,
    choice_retry,
    follow_up_said,
    reply_to_follow_up,
    self_rated,
    summary,
)
from grader.report.view import points_text
from grader.serve.app import Service, _denied, checked_form
from grader.serve.tokens import token_hash

VISITOR = "grader_learner"
_VISITOR_ID = re.compile(r"[A-Za-z0-9_-]{43}")  # secrets.token_urlsafe(32), as the service makes them
VISITOR_DAYS = 180  # a self-learner's progress outlives a browser restart, as the terminal's file does
MAX_ANSWER_CHARS = 4000  # an answer is a few sentences; the judge's work grows with its length
_BODY = 4 * MAX_ANSWER_CHARS + 4096  # a form's bytes: one answer (up to 4 bytes a character) and its fields
SIGN_IN = "Sign in with the link your instructor sent you."
ANSWER_CAP = f"Answers are limited to {MAX_ANSWER_CHARS} characters."


class QuizProgress(BaseModel):
    """One learner's quiz: the terminal's session, and the item whose verdict is on display."""

    model_config = ConfigDict(extra="forbid")
    session: SessionState
    showing: str | None = None


class CardsProgress(BaseModel):
    """One learner's schedule (the terminal's), and the cards rated Again since they were last rated otherwise."""

    model_config = ConfigDict(extra="forbid")
    cards: CardsState = Field(default_factory=CardsState)
    again: list[str] = Field(default_factory=list)


class Learner(NamedTuple):
    key: str  # whose progress
    csrf: str
    cookie: str | None = None  # a new visitor's cookie, to set on the page that answers them
    name: str | None = None  # the signed-in person's, for the page's header (a visitor has none)


@cache
def _quiz() -> Quiz:
    return load_quiz(DEFAULT_QUIZ)


def _learner(request: Request, svc: Service, *, new: bool) -> Learner | None:
    """Who is learning: the signed-in person, else (self-learners allowed) the visitor the cookie names,
    else with `new` (a page, never a POST) a new visitor. None: refused."""
    found = svc.who(request)
    if found is not None:
        who = found[0]
        return Learner(f"{who.role}:{who.key}", found[1], name=svc.names.get(who.key, who.role))
    if not svc.course.self_learners:
        return None
    cookie, made = request.cookies.get(VISITOR, ""), None
    if not _VISITOR_ID.fullmatch(cookie):
        if not new:
            return None
        cookie = made = secrets.token_urlsafe(32)
    return Learner(f"visitor:{token_hash(cookie)}", svc.visitor_csrf(cookie), made)


def _page(svc: Service, request: Request, learner: Learner, template: str, status: int = 200, **values) -> Response:
    response = svc.page(template, status, csrf=learner.csrf, who=learner.name, **values)
    if learner.cookie is not None:
        response.set_cookie(VISITOR, learner.cookie, max_age=VISITOR_DAYS * 86400, httponly=True, samesite="lax",
                            secure=request.url.scheme == "https")
    return response


async def _posted(request: Request, svc: Service) -> tuple[Learner, dict] | Response:
    learner = _learner(request, svc, new=False)
    if learner is None:
        return _denied(svc, 401, SIGN_IN)
    form = await checked_form(request, svc, learner.csrf, body=_BODY, part=_BODY, max_files=0, too_large=ANSWER_CAP)
    return form if isinstance(form, Response) else (learner, form)


def _text(form: dict, name: str) -> str | None:
    """A field's text; None when it is over the cap."""
    text = str(form.get(name, ""))
    return text if len(text) <= MAX_ANSWER_CHARS else None


# --- the quiz ------------------------------------------------------------------------------------------

def _progress(svc: Service, learner: Learner) -> QuizProgress:
    """Saved progress; a fresh start when there is none, or it is another chapter's or unreadable, and
    without the answers that no longer fit the quiz file (edited since)."""
    quiz, text = _quiz(), svc.store.learning(learner.key, "quiz")
    try:
        saved = QuizProgress.model_validate_json(text) if text else None
    except ValidationError:
        saved = None
    if saved is None or saved.session.chapter != quiz.chapter:
        return QuizProgress(session=SessionState(chapter=quiz.chapter))
    entries = saved.session.entries
    for item_id in [i for i, e in entries.items() if not _fits(quiz.item(i), e)]:
        del entries[item_id]  # asked afresh
    if saved.showing not in entries:
        saved.showing = None
    return saved


def _fits(item, entry: Entry) -> bool:
    """An answer saved against an earlier quiz file still fits this one: its item is here, and so is the
    follow-up question it was asked."""
    return item is not None and (entry.follow_up is None or any(
        k.follow_up == entry.follow_up for k in getattr(item, "key_points", [])))


def _keep(svc: Service, learner: Learner, kind: str, progress: BaseModel) -> None:
    svc.store.keep_learning(learner.key, kind, progress.model_dump_json())


def _current(quiz: Quiz, progress: QuizProgress):
    """The item asked now: the first in the quiz's order not answered yet (None: all are)."""
    return next((i for i in quiz.items if i.id not in progress.session.entries), None)


def _asked(item, n: int, total: int, **extra) -> dict:
    return {"item": item, "number": n, "total": total, "choice": isinstance(item, ChoiceItem),
            "self_item": isinstance(item, SelfItem), **extra}


async def quiz_page(request: Request) -> Response:
    svc: Service = request.app.state.svc
    learner = _learner(request, svc, new=True)
    if learner is None:
        return _denied(svc, 401, SIGN_IN)
    quiz, progress = _quiz(), _progress(svc, learner)
    total = len(quiz.items)
    if progress.showing is not None and (item := quiz.item(progress.showing)) is not None:
        entry = progress.session.entries[item.id]
        return _page(svc, request, learner, "quiz.html", **_asked(item, _number(quiz, item), total),
                     shown=_shown(item, entry))
    item = _current(quiz, progress)
    if item is None:
        score, out_of, rows = summary(quiz, progress.session)
        return _page(svc, request, learner, "quiz.html", finished=True, score=points_text(score, out_of), rows=rows)
    return _page(svc, request, learner, "quiz.html", **_asked(item, _number(quiz, item), total))


def _number(quiz: Quiz, item) -> int:
    return [i.id for i in quiz.items].index(item.id) + 1


def _shown(item, entry: Entry) -> dict:
    """An answered item as the page shows it: the verdict, its per-point feedback, the follow-up (asked, or
    its result), and the model answer (the page shows it once no follow-up waits for a reply)."""
    res, waiting = entry.result, entry.follow_up is not None and entry.follow_up_answer is None
    return {"answer": entry.answer, "verdict": res.verdict, "points": points_text(res.score, res.max_score),
            "feedback": res.feedback.splitlines(), "self_rating": entry.self_rating,
            "follow_up": entry.follow_up, "waiting": waiting, "follow_up_answer": entry.follow_up_answer,
            "follow_up_said": follow_up_said(item, entry) if entry.follow_up_answer is not None else None,
            "explanation": item.explanation}


async def quiz_answer(request: Request) -> Response:
    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    learner, form = got
    answer = ":s" if form.get("skip") else _text(form, "answer")  # the terminal's skip
    if answer is None:
        return _denied(svc, 413, ANSWER_CAP)
    quiz, progress = _quiz(), _progress(svc, learner)
    item = _current(quiz, progress)
    if progress.showing is not None or item is None or str(form.get("item", "")) != item.id:
        return RedirectResponse("/quiz", 303)  # a form from another tab or an earlier item: nothing is judged
    if isinstance(item, SelfItem):
        rating = str(form.get("rating", ""))
        if rating not in SELF_RATINGS:
            return _page(svc, request, learner, "quiz.html", 400, **_asked(item, _number(quiz, item), len(quiz.items),
                                                                            note="Rate yourself: 1, 2 or 3."))
        entry = self_rated(item, rating)
    else:
        if (why := await run_in_threadpool(choice_retry, item, answer)) is not None:  # not a verdict: the item is asked again
            return _page(svc, request, learner, "quiz.html", **_asked(item, _number(quiz, item), len(quiz.items),
                                                                       note=why, answer=answer))
        entry = await run_in_threadpool(answered, item, answer)  # the judge, off the event loop
    progress.session.entries[item.id] = entry
    progress.showing = item.id
    _keep(svc, learner, "quiz", progress)
    return RedirectResponse("/quiz", 303)


async def quiz_follow_up(request: Request) -> Response:
    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    learner, form = got
    reply = _text(form, "reply")
    if reply is None:
        return _denied(svc, 413, ANSWER_CAP)
    quiz, progress = _quiz(), _progress(svc, learner)
    entry = progress.session.entries.get(progress.showing or "")
    if entry is not None and str(form.get("item", "")) == progress.showing and entry.follow_up is not None \
            and entry.follow_up_answer is None:  # at most one follow-up, replied to once
        await run_in_threadpool(reply_to_follow_up, quiz.item(progress.showing), entry, reply)
        _keep(svc, learner, "quiz", progress)
    return RedirectResponse("/quiz", 303)


async def quiz_next(request: Request) -> Response:
    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    learner, _ = got
    progress = _progress(svc, learner)
    entry = progress.session.entries.get(progress.showing or "")
    if entry is not None and (entry.follow_up is None or entry.follow_up_answer is not None):
        progress.showing = None
        _keep(svc, learner, "quiz", progress)
    return RedirectResponse("/quiz", 303)


async def quiz_restart(request: Request) -> Response:
    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    _keep(svc, got[0], "quiz", QuizProgress(session=SessionState(chapter=_quiz().chapter)))
    return RedirectResponse("/quiz", 303)


# --- the recall cards ----------------------------------------------------------------------------------

def _cards(svc: Service, learner: Learner) -> CardsProgress:
    text = svc.store.learning(learner.key, "cards")
    try:
        return CardsProgress.model_validate_json(text) if text else CardsProgress()
    except ValidationError:
        return CardsProgress()


async def cards_page(request: Request) -> Response:
    svc: Service = request.app.state.svc
    learner = _learner(request, svc, new=True)
    if learner is None:
        return _denied(svc, 401, SIGN_IN)
    quiz, progress, now = _quiz(), _cards(svc, learner), svc.clock()
    found = next_card(quiz, progress.cards, now, progress.again)
    if found is None:
        upcoming = next_due(quiz, progress.cards, now)
        return _page(svc, request, learner, "cards.html", card=None,
                     upcoming=upcoming.isoformat(timespec="minutes") if upcoming else None)
    card, early = found
    return _page(svc, request, learner, "cards.html", card=card, early=early,
                 due=len(due_cards(quiz, progress.cards, now)))


async def cards_rate(request: Request) -> Response:
    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    learner, form = got
    rating = RATINGS.get(str(form.get("rating", "")).strip().lower())
    if rating is None:
        return _denied(svc, 400, "Rate the card Again, Hard, Good or Easy.")
    quiz, progress, now = _quiz(), _cards(svc, learner), svc.clock()
    found = next_card(quiz, progress.cards, now, progress.again)
    if found is None or found[0].id != str(form.get("card", "")):
        return RedirectResponse("/cards", 303)  # a card not on display now (another tab, a reload): not rated
    card = found[0]
    review(card, rating, progress.cards, make_scheduler(), now)
    progress.again = [c for c in progress.again if c != card.id] + ([card.id] if rating == RATINGS["again"] else [])
    _keep(svc, learner, "cards", progress)
    return RedirectResponse("/cards", 303)


ROUTES = [
    Route("/quiz", quiz_page), Route("/quiz/answer", quiz_answer, methods=["POST"]),
    Route("/quiz/follow-up", quiz_follow_up, methods=["POST"]), Route("/quiz/next", quiz_next, methods=["POST"]),
    Route("/quiz/restart", quiz_restart, methods=["POST"]),
    Route("/cards", cards_page), Route("/cards/rate", cards_rate, methods=["POST"]),
]
