"""The quiz and recall cards in the browser: the terminal's verdicts, follow-up and schedule, for a signed-in
student and (when the course file allows) a self-learner without an account, each visitor's progress their own."""

from __future__ import annotations

import html
import json
import re
import sqlite3

import pytest
from starlette.testclient import TestClient
from support.serving import SECRET, sign_in, student, write_course

from grader.quiz.load import DEFAULT_QUIZ, load_quiz
from grader.rubric.load import RubricError
from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.learn import VISITOR
from grader.serve.tokens import INSTRUCTOR, Who, token_for

QUIZ = load_quiz(DEFAULT_QUIZ)
# The weights and what happens to them too far apart to be read as one claim: the judge cannot tell.
FAR = "The weights, computed from queries and keys that we kept fixed, stay."


@pytest.fixture
def open_app(tmp_path, clock):
    course = load_course(write_course(tmp_path / "open", self_learners="true"))
    return make_app(course, SECRET, grade=None, clock=clock)


def visitor(app) -> tuple[TestClient, str]:
    """A browser with no account: its first visit gives it a visitor cookie and a CSRF token."""
    client = TestClient(app, follow_redirects=False)
    page = client.get("/quiz")
    assert page.status_code == 200, page.text
    return client, _csrf(page.text)


def _read(client, path: str) -> str:
    """A page's text as the learner reads it (entities unescaped: the quiz's prose has apostrophes)."""
    return html.unescape(client.get(path).text)


def _csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def _item(page: str) -> str:
    return re.search(r'name="item" value="([^"]+)"', page).group(1)


def answer(client, csrf: str, text: str, **extra) -> str:
    """Answers the item on display and returns the page that follows (the verdict, or the item asked again)."""
    item = _item(_read(client, "/quiz"))
    r = client.post("/quiz/answer", data={"csrf": csrf, "item": item, "answer": text, **extra})
    if r.status_code == 303:
        return _read(client, r.headers["location"])
    assert r.status_code == 200, r.text
    return html.unescape(r.text)


def next_item(client, csrf: str) -> str:
    r = client.post("/quiz/next", data={"csrf": csrf})
    assert r.status_code == 303
    return _read(client, "/quiz")


def test_a_self_learner_answers_partly_replies_to_the_follow_up_then_right_then_wrong(open_app):
    client, csrf = visitor(open_app)
    first = _read(client, "/quiz")
    assert "Question 1 of 9" in first and QUIZ.items[0].prompt in first

    page = answer(client, csrf, "the values are what gets mixed")
    assert "partial" in page and "Which two of the three projections" in page  # the judge's follow-up
    assert QUIZ.items[0].explanation not in page  # the model answer waits for the reply
    assert 'action="/quiz/next"' not in page  # and so does the next question
    r = client.post("/quiz/follow-up", data={"csrf": csrf, "item": "what-mixes", "reply": "the query and the key"})
    assert r.status_code == 303
    page = _read(client, "/quiz")
    assert "✓ The weights come from matching queries against keys" in page  # judged by its own rubric
    assert QUIZ.items[0].explanation in page

    page = next_item(client, csrf)
    assert "Question 2 of 9" in page
    page = answer(client, csrf, "Row i predicts the next token i+1, and its own token is already known.")
    assert "Verdict: correct" in page and "1 / 1" in page

    page = next_item(client, csrf)
    assert "Question 3 of 9" in page and "A)" in page  # a choice item lists its options
    page = answer(client, csrf, "the last one")  # names no option: asked again, not marked wrong
    assert "Could not match your answer" in page and "Verdict:" not in page and "Question 3 of 9" in page
    page = answer(client, csrf, "B")
    assert "Verdict: incorrect" in page and QUIZ.items[2].explanation in page


def test_undetermined_is_said_as_such_with_the_judges_one_question(open_app):
    client, csrf = visitor(open_app)
    for _ in range(5):  # skipped up to value-change, with the Skip button whatever the box holds
        assert "Verdict: unanswered" in answer(client, csrf, "half an answer", skip="1")
        next_item(client, csrf)
    page = answer(client, csrf, FAR)
    assert "Verdict: undetermined" in page and "could not tell" in page.lower()
    assert "Which inputs are the attention weights computed from" in page
    assert "✗ " + QUIZ.item("value-change").key_points[0].feedback not in page


def test_the_explain_it_back_item_is_rated_by_the_learner_and_the_summary_counts(open_app):
    client, csrf = visitor(open_app)
    for _ in range(8):
        answer(client, csrf, "")
        next_item(client, csrf)
    page = _read(client, "/quiz")
    assert "Question 9 of 9" in page and QUIZ.items[8].checklist[0] in page
    assert "You rated yourself: got it" in answer(client, csrf, "", rating="3")
    page = next_item(client, csrf)
    assert "explain-it-back: got it" in page and "Score: 0 / 8" in page
    r = client.post("/quiz/restart", data={"csrf": csrf})
    assert r.status_code == 303 and "Question 1 of 9" in _read(client, "/quiz")


def test_a_stale_form_for_another_item_judges_nothing(open_app):
    client, csrf = visitor(open_app)
    r = client.post("/quiz/answer", data={"csrf": csrf, "item": "diagonal", "answer": "anything"})
    page = _read(client, "/quiz")
    assert r.status_code == 303 and "Question 1 of 9" in page and "Verdict:" not in page
    r = client.post("/quiz/follow-up", data={"csrf": csrf, "item": "what-mixes", "reply": "the query and the key"})
    page = _read(client, "/quiz")
    assert r.status_code == 303 and "Question 1 of 9" in page and "Verdict:" not in page
    page = answer(client, csrf, "the values are what gets mixed")
    r = client.post("/quiz/answer", data={"csrf": csrf, "item": "what-mixes", "answer": "Queries and keys set the "
                                          "weights; the values are mixed."})  # the same item, answered again
    assert r.status_code == 303 and _read(client, "/quiz") == page  # the first verdict stands
    r = client.post("/quiz/answer", data={"csrf": csrf, "item": "diagonal", "answer": "anything"})  # another tab
    assert r.status_code == 303 and _read(client, "/quiz") == page  # the next item waits for "Next"


def test_a_card_rated_again_comes_back_in_the_same_session(open_app, clock):
    client, csrf = visitor(open_app)
    cards = QUIZ.cards
    page = _read(client, "/cards")
    assert cards[0].front in page and cards[0].back in page  # the back is in a <details>, shown on reveal
    assert re.search(r"<details>.*" + re.escape(cards[0].back), page, re.S)

    def rate(card: str, rating: str) -> str:
        r = client.post("/cards/rate", data={"csrf": csrf, "card": card, "rating": rating})
        assert r.status_code == 303
        return _read(client, "/cards")

    page = rate(cards[0].id, "again")
    assert cards[1].front in page and cards[0].front not in page  # due again in a minute, not yet
    clock.advance(1)
    assert cards[0].front in _read(client, "/cards")  # due: it comes back
    page = rate(cards[0].id, "again")
    for card in cards[1:]:
        assert card.front in page
        page = rate(card.id, "easy")
    assert cards[0].front in page and "early" in page  # nothing else left: the forgotten one, shown a little early
    page = rate(cards[0].id, "good")
    assert "No cards due" in page
    saved = open_app.state.svc.store
    assert any(saved.learning(k, "cards") for k in _learners(saved))


def _learners(store) -> list[str]:
    with store._db() as db:
        return [r[0] for r in db.execute("SELECT learner FROM learning")]


def test_rating_a_card_that_is_not_due_or_not_a_card_changes_nothing(open_app):
    client, csrf = visitor(open_app)
    card = QUIZ.cards[0].id
    assert client.post("/cards/rate", data={"csrf": csrf, "card": card, "rating": "easy"}).status_code == 303
    before = open_app.state.svc.store.learning(*_only(open_app), "cards")
    assert client.post("/cards/rate", data={"csrf": csrf, "card": card, "rating": "again"}).status_code == 303
    assert client.post("/cards/rate", data={"csrf": csrf, "card": "card-nope", "rating": "good"}).status_code == 303
    assert client.post("/cards/rate", data={"csrf": csrf, "card": QUIZ.cards[1].id, "rating": "7"}).status_code == 400
    assert open_app.state.svc.store.learning(*_only(open_app), "cards") == before


def _only(app) -> list[str]:
    (learner,) = _learners(app.state.svc.store)
    return [learner]


def test_each_visitor_has_their_own_progress_and_token(open_app):
    ada, ada_csrf = visitor(open_app)
    bo, bo_csrf = visitor(open_app)
    assert ada.cookies[VISITOR] != bo.cookies[VISITOR] and ada_csrf != bo_csrf
    answer(ada, ada_csrf, "the values are what gets mixed")
    assert "Which two of the three projections" in _read(ada, "/quiz")
    page = _read(bo, "/quiz")
    assert "Question 1 of 9" in page and "Which two" not in page and "partial" not in page
    r = bo.post("/quiz/answer", data={"csrf": ada_csrf, "item": "what-mixes", "answer": "A"})
    assert r.status_code == 403  # another visitor's token is no token
    r = bo.post("/cards/rate", data={"csrf": ada_csrf, "card": QUIZ.cards[0].id, "rating": "good"})
    assert r.status_code == 403
    assert bo.post("/quiz/answer", data={"item": "what-mixes", "answer": "A"}).status_code == 403
    assert "Which two of the three projections" in _read(ada, "/quiz")  # untouched by any of that
    assert "Question 1 of 9" in _read(bo, "/quiz")


def test_a_malformed_visitor_cookie_is_no_visitor_and_one_never_issued_is_a_visitor_of_its_own(open_app):
    client = TestClient(open_app, follow_redirects=False, cookies={VISITOR: "made-up"})
    r = client.post("/quiz/answer", data={"csrf": "x", "item": "what-mixes", "answer": "A"})
    assert r.status_code == 401
    assert client.post("/cards/rate", data={"csrf": "x", "card": "card-x", "rating": "good"}).status_code == 401
    page = client.get("/quiz")  # a page visit is a new visitor, with a cookie of the service's own
    assert page.status_code == 200 and page.cookies.get(VISITOR) not in (None, "made-up")
    ada, ada_csrf = visitor(open_app)
    answer(ada, ada_csrf, "the values are what gets mixed")
    chosen = TestClient(open_app, follow_redirects=False, cookies={VISITOR: "A" * 43})  # well formed, never issued
    page = _read(chosen, "/quiz")
    assert "Question 1 of 9" in page and "Which two" not in page and _csrf(page) != ada_csrf
    r = chosen.post("/quiz/answer", data={"csrf": ada_csrf, "item": "what-mixes", "answer": "A"})
    assert r.status_code == 403


def _rows(store) -> int:
    """Every row of every table of the store, read through a connection of its own."""
    db = sqlite3.connect(store.path)
    try:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        return sum(db.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables)
    finally:
        db.close()


def test_a_visitors_pages_write_nothing_to_the_store(open_app):
    """A crawler (no cookies kept) costs no row: only an answer or a rating is kept."""
    store = open_app.state.svc.store
    before = _rows(store)
    for _ in range(3):
        for path in ("/quiz", "/cards", "/"):
            TestClient(open_app, follow_redirects=False).get(path)
    assert _rows(store) == before
    client, csrf = visitor(open_app)
    answer(client, csrf, "A")
    assert _rows(store) == before + 1


def test_a_signed_in_student_uses_them_too_with_progress_of_their_own(open_app, app):
    for served in (open_app, app):  # with self-learners or without
        ada, csrf = sign_in(served, student("s1"))
        assert 'href="/quiz"' in ada.get("/").text and 'href="/cards"' in ada.get("/").text
        assert "partial" in answer(ada, csrf, "the values are what gets mixed")
        assert "signed in as Ada One" in _read(ada, "/quiz") and VISITOR not in ada.cookies
        bo, bo_csrf = sign_in(served, student("s2"))
        assert "Question 1 of 9" in _read(bo, "/quiz")
        visitor_page = TestClient(served, follow_redirects=False).get("/quiz")
        assert visitor_page.status_code == (200 if served is open_app else 401)
        if served is open_app:
            assert "Which two" not in visitor_page.text


def test_without_self_learners_a_visitor_gets_no_quiz_and_no_cookie(app):
    client = TestClient(app, follow_redirects=False)
    for path in ("/quiz", "/cards"):
        r = client.get(path)
        assert r.status_code == 401 and VISITOR not in r.cookies
    assert client.post("/quiz/answer", data={"csrf": "x", "item": "what-mixes", "answer": "A"}).status_code == 401


def test_the_home_page_points_self_learners_to_the_quiz_only_when_open(open_app, app):
    assert 'href="/quiz"' in TestClient(open_app).get("/").text
    assert 'href="/quiz"' not in TestClient(app).get("/").text


def test_an_answer_over_the_cap_is_refused_and_judges_nothing(open_app):
    client, csrf = visitor(open_app)
    r = client.post("/quiz/answer", data={"csrf": csrf, "item": "what-mixes", "answer": "values " * 2000})
    assert r.status_code == 413
    assert "Question 1 of 9" in _read(client, "/quiz")
    answer(client, csrf, "the values are what gets mixed")
    r = client.post("/quiz/follow-up", data={"csrf": csrf, "item": "what-mixes", "reply": "query " * 1000})
    assert r.status_code == 413
    page = _read(client, "/quiz")
    assert 'action="/quiz/follow-up"' in page and "Your reply" not in page  # still waiting for a reply


def test_no_secret_or_token_appears_in_the_quiz_or_card_pages(open_app):
    client, csrf = visitor(open_app)
    pages = [_read(client, "/quiz"), _read(client, "/cards"), answer(client, csrf, "the values are mixed")]
    ada, _ = sign_in(open_app, student("s1"))
    pages += [_read(ada, "/quiz"), _read(ada, "/cards")]
    tokens = [token_for(SECRET, w) for w in (INSTRUCTOR, *(Who("student", k) for k in ("s1", "s2", "s3")))]
    for page in pages:
        assert SECRET not in page and not any(t in page for t in tokens)
        assert client.cookies[VISITOR] not in page  # nor the visitor's own cookie


def test_self_learners_must_be_true_or_false(tmp_path):
    path = write_course(tmp_path, self_learners="sometimes")
    with pytest.raises(RubricError) as err:
        load_course(path)
    assert err.value.problems[0].startswith(f"{path}:10:"), err.value.problems


def test_progress_saved_against_an_older_quiz_file_is_dropped_where_it_no_longer_fits(open_app):
    """The quiz file is edited while learners are mid-way: an answered item that is gone, or whose follow-up
    question was reworded, is asked afresh; the rest of the progress stays."""
    client, csrf = visitor(open_app)
    answer(client, csrf, "the values are what gets mixed")  # what-mixes, a follow-up waiting
    store = open_app.state.svc.store
    (learner,) = _learners(store)
    saved = json.loads(store.learning(learner, "quiz"))
    saved["session"]["entries"]["what-mixes"]["follow_up"] = "A question the quiz no longer asks?"
    gone = {**saved["session"]["entries"]["what-mixes"], "follow_up": None}
    saved["session"]["entries"]["an-item-since-removed"] = gone
    saved["session"]["entries"]["diagonal"] = {**gone, "answer": "kept"}
    store.keep_learning(learner, "quiz", json.dumps(saved))
    page = _read(client, "/quiz")
    assert "Question 1 of 9" in page and "Verdict:" not in page  # asked afresh, no error
    answer(client, csrf, "Queries and keys set the weights; the values are mixed.")
    assert "Question 3 of 9" in next_item(client, csrf)  # diagonal's answer was kept
