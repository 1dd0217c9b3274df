"""The quiz and cards verbs. Parsing only: every handler calls one function of the package."""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from grader.quiz.load import DEFAULT_QUIZ, QuizFileError, load_answers, load_quiz
from grader.report.view import points_text

EXIT_USAGE = 2


def _io():
    """Prompt/print pair: readline editing in a terminal; piped input is echoed so transcripts read well."""
    interactive = sys.stdin.isatty()
    if interactive:
        try:
            import readline  # noqa: F401
        except ImportError:
            pass

    def ask(prompt: str) -> str:
        if interactive:
            return input(prompt)
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print()
            raise EOFError
        print(line.rstrip("\n"), flush=True)
        return line.rstrip("\n")

    def say(text: str) -> None:
        print(text, flush=True)

    return ask, say


def _guard(fn):
    """Bad files and answers become one clear message and exit 2, never a traceback."""

    def handler(args) -> int:
        try:
            return fn(args)
        except QuizFileError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return EXIT_USAGE
        except KeyboardInterrupt:
            print("\ninterrupted; progress saved.", file=sys.stderr)
            return 130
        except BrokenPipeError:
            # Output piped into `head`: stop quietly, as other command-line tools do.
            sys.stdout = open(os.devnull, "w")
            return 0

    return handler


@_guard
def cmd_quiz(args) -> int:
    from grader.quiz.session import default_session_path, run_session

    quiz = load_quiz(args.quiz)
    ask, say = _io()
    return run_session(quiz, default_session_path(args.session), ask=ask, say=say, restart=args.restart)


@_guard
def cmd_check(args) -> int:
    from grader.quiz.judge import check_answers

    quiz = load_quiz(args.quiz)
    result = check_answers(quiz, load_answers(args.answers, quiz))
    if args.json:
        # The whole result: its shape is published as grader/schemas/quiz-check.schema.json.
        print(json.dumps(result.model_dump(mode="json"), indent=2))
        return 0
    for r in result.items:
        print(f"{r.id}: {r.verdict} ({points_text(r.score, r.max_score)})")
        for line in r.feedback.splitlines():
            print(f"  {line}")
    scored = [r for r in result.items if r.max_score > 0]
    answered = sum(r.verdict != "unanswered" for r in scored)
    print(f"\nScore: {points_text(result.score, result.max_score)} ({answered} of {len(scored)} scored items answered)")
    return 0


@_guard
def cmd_export(args) -> int:
    from grader.quiz.export import export

    out = export(load_quiz(args.quiz), args.format, Path(args.out))
    print(f"wrote {out}")
    return 0


def _parse_now(text: str | None) -> datetime:
    if not text:
        return datetime.now(UTC)
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise QuizFileError(f"--now: not an ISO date-time: {text!r}") from None
    return (when.replace(tzinfo=UTC) if when.tzinfo is None else when).astimezone(UTC)


@_guard
def cmd_cards(args) -> int:
    from grader.quiz.cards import (
        default_state_path,
        load_recent,
        load_state,
        make_scheduler,
        recent_path,
        run_review,
        schedule_table,
    )

    quiz = load_quiz(args.quiz)
    path = default_state_path(args.state)
    fixed = _parse_now(args.now) if args.now else None
    now = (lambda: fixed) if fixed else (lambda: datetime.now(UTC))
    if args.list:
        for card_id, due, reviews in schedule_table(quiz, load_state(path), now()):
            print(f"{card_id:32} due {due}  reviews {reviews}")
        return 0
    ask, say = _io()
    return run_review(quiz, path, ask=ask, say=say, now=now, scheduler=make_scheduler(args.fuzz), limit=args.limit,
                      first=load_recent(recent_path()))


def _quiz_option(p: argparse.ArgumentParser, default) -> None:
    p.add_argument("--quiz", type=Path, default=default, metavar="PATH",
                   help=f"quiz file (default: the {DEFAULT_QUIZ.name} shipped with the grader)")


def register(subparsers) -> None:
    quiz = subparsers.add_parser("quiz", help="the chapter quiz: interactive, check answers, export")
    _quiz_option(quiz, DEFAULT_QUIZ)
    quiz.add_argument("--session", metavar="PATH", help="session file (default: user data dir; env GRADER_QUIZ_SESSION)")
    quiz.add_argument("--restart", action="store_true", help="discard saved progress and start over")
    quiz.set_defaults(func=cmd_quiz)
    verbs = quiz.add_subparsers(dest="quiz_verb", metavar="{check,export}")
    # SUPPRESS keeps a --quiz given before the verb from being overwritten by the verb's default.
    check = verbs.add_parser("check", help="judge a YAML file of answers (item id -> your text)")
    check.add_argument("answers", type=Path, metavar="ANSWERS.yaml")
    check.add_argument("--json", action="store_true", help="machine-readable result")
    _quiz_option(check, argparse.SUPPRESS)
    check.set_defaults(func=cmd_check)
    exp = verbs.add_parser("export", help="write the quiz for an LMS")
    exp.add_argument("--format", required=True, choices=("gift", "moodle-xml"))
    exp.add_argument("--out", required=True, metavar="FILE")
    _quiz_option(exp, argparse.SUPPRESS)
    exp.set_defaults(func=cmd_export)

    cards = subparsers.add_parser("cards", help="review the recall cards (spaced repetition, FSRS)")
    _quiz_option(cards, DEFAULT_QUIZ)
    cards.add_argument("--state", metavar="PATH", help="schedule file (default: user data dir; env GRADER_CARDS_STATE)")
    cards.add_argument("--list", action="store_true", help="show each card's next due time and exit")
    cards.add_argument("--limit", type=int, metavar="N", help="review at most N due cards")
    cards.add_argument("--now", metavar="ISO", help="pretend the clock reads this (UTC unless an offset is given)")
    cards.add_argument("--fuzz", action="store_true", help="let FSRS fuzz intervals (off by default: deterministic)")
    cards.set_defaults(func=cmd_cards)
