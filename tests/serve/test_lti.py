"""LTI 1.3 against a platform simulated here: its keys made in the test, its token and scores endpoints
an injected HTTP transport that checks what a platform checks. A valid launch signs the right roster
student in; every forged, stale or replayed launch is refused with its reason; the passback sends each
student's own score and keeps a failed one queued until the platform takes it."""

from __future__ import annotations

import html
import json
import re
import secrets
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import httpx
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.testclient import TestClient
from support.serving import NOW, SECRET, fake_grade, write_course

from grader.rubric.load import RubricError
from grader.serve.app import make_app
from grader.serve.course import load_course
from grader.serve.lti import AGS_CLAIM, CLAIM, SCORE_SCOPE
from grader.serve.passback import Passer, scores_url
from grader.serve.store import LtiStore
from grader.serve.worker import drain

ISS, CLIENT, DEPLOYMENT = "https://lms.example.edu", "10000000000042", "1:abc"
TOKEN_URL = "https://lms.example.edu/login/oauth2/token"
LINEITEM = "https://lms.example.edu/api/lti/courses/7/line_items/3?type_id=1"
LEARNER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
TEACHER = "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"
# sub is the platform's own opaque user id; the roster knows the students by id and e-mail.
SUBS = {"s1": "lti-user-aaa", "s2": "lti-user-bbb", "s3": "lti-user-ccc"}


def _rsa():
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


class Platform:
    """The LMS: signs launches, issues service tokens to a tool whose client assertion verifies, and
    records the scores posted to its line items; `down` makes both endpoints answer 503."""

    def __init__(self, tool_public, clock):
        self.key, self.tool_public, self.clock = _rsa(), tool_public, clock
        self.unreachable = False  # every call fails as a connection would
        self.calls = 0
        self.scores: list[dict] = []
        self.tokens: set[str] = set()
        self.down = False

    def jwks(self) -> dict:
        jwk = jwt.algorithms.RSAAlgorithm.to_jwk(self.key.public_key(), as_dict=True)
        return {"keys": [{**jwk, "kid": "platform-1", "alg": "RS256", "use": "sig"}]}

    def id_token(self, nonce: str, student: str = "s1", *, key=None, roles=(LEARNER,), **over) -> str:
        claims = {"iss": ISS, "aud": CLIENT, "sub": SUBS.get(student, "lti-user-zzz"),
                  "iat": int(NOW.timestamp()), "exp": int((NOW + timedelta(minutes=5)).timestamp()), "nonce": nonce,
                  "email": f"{student}@uni.example", "name": "Someone",
                  CLAIM + "deployment_id": DEPLOYMENT, CLAIM + "version": "1.3.0",
                  CLAIM + "message_type": "LtiResourceLinkRequest", CLAIM + "roles": list(roles),
                  CLAIM + "resource_link": {"id": "rl-1"},
                  AGS_CLAIM: {"scope": [SCORE_SCOPE], "lineitem": LINEITEM}}
        claims.update(over)
        claims = {k: v for k, v in claims.items() if v is not None}
        return jwt.encode(claims, key or self.key, algorithm="RS256", headers={"kid": "platform-1"})

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if self.unreachable:
            raise httpx.ConnectError("connection refused", request=request)
        if self.down:
            return httpx.Response(503)
        url = str(request.url)
        if url == TOKEN_URL:
            form = parse_qs(request.content.decode())
            assert form["grant_type"] == ["client_credentials"]
            assert form["scope"] == [SCORE_SCOPE]
            claims = jwt.decode(form["client_assertion"][0], self.tool_public, algorithms=["RS256"], audience=TOKEN_URL,
                                options={"verify_exp": False, "verify_iat": False})  # on the test's clock:
            now = self.clock.now.timestamp()
            if claims["iss"] != CLIENT or claims["sub"] != CLIENT or not claims["iat"] <= now < claims["exp"]:
                return httpx.Response(401)
            token = secrets.token_urlsafe(8)
            self.tokens.add(token)
            return httpx.Response(200, json={"access_token": token, "token_type": "bearer", "expires_in": 3600})
        if url == scores_url(LINEITEM):
            if request.headers.get("authorization", "").removeprefix("Bearer ") not in self.tokens:
                return httpx.Response(401)
            assert request.headers["content-type"] == "application/vnd.ims.lis.v1.score+json"
            self.scores.append(json.loads(request.content))
            return httpx.Response(200)
        return httpx.Response(404)


@pytest.fixture
def lms(tmp_path, clock):
    """(the app, the platform, the course, a passer over the platform's transport)."""
    tool = _rsa()
    platform = Platform(tool.public_key(), clock)
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "platform.jwks").write_text(json.dumps(platform.jwks()))
    (folder / "tool.pem").write_bytes(tool.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    lti = {"issuer": ISS, "client_id": CLIENT, "deployment_ids": [DEPLOYMENT],
           "auth_login_url": "https://lms.example.edu/api/lti/authorize_redirect", "auth_token_url": TOKEN_URL,
           "key_set": "platform.jwks", "tool_key": "tool.pem", "redirect_uri": "https://grader.example/lti/launch"}
    course = load_course(write_course(folder, lti=json.dumps(lti), rate_limit="null"))
    app = make_app(course, SECRET, grade=None, clock=clock)
    passer = Passer(course.lti, app.state.svc.store, client=httpx.Client(transport=httpx.MockTransport(platform.handle)))
    return app, platform, course, passer


def _login(client: TestClient, **params) -> tuple[str, str]:
    """The platform's login initiation; the state and nonce the tool sent the browser on with."""
    r = client.post("/lti/login", data={"iss": ISS, "login_hint": "opaque-hint", "target_link_uri":
                                        "https://grader.example/", "client_id": CLIENT, **params})
    assert r.status_code == 302, r.text
    sent = parse_qs(urlsplit(r.headers["location"]).query)
    assert sent["response_type"] == ["id_token"] and sent["response_mode"] == ["form_post"]
    assert sent["scope"] == ["openid"] and sent["prompt"] == ["none"] and sent["client_id"] == [CLIENT]
    assert sent["login_hint"] == ["opaque-hint"]
    return sent["state"][0], sent["nonce"][0]


def _launch(app, platform, student="s1", **over) -> tuple[TestClient, httpx.Response]:
    client = TestClient(app, follow_redirects=False)
    state, nonce = _login(client)
    token = platform.id_token(over.pop("nonce", nonce), student, **over)
    return client, client.post("/lti/launch", data={"id_token": token, "state": state})


def _upload(client: TestClient, code: str) -> str:
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/").text).group(1)
    r = client.post("/submit", data={"csrf": csrf, "code": code})
    assert r.status_code == 303, r.text
    return r.headers["location"]


def test_a_valid_launch_signs_the_roster_student_in_and_records_their_line_item(lms):
    app, platform, _, _ = lms
    client, r = _launch(app, platform, "s2")
    assert r.status_code == 303, r.text
    home = client.get("/")
    assert home.status_code == 200 and "Bo Two" in home.text
    assert LtiStore(app.state.svc.store).linked("s2") == (SUBS["s2"], LINEITEM)


def test_an_instructors_launch_opens_the_class_view(lms):
    app, platform, _, _ = lms
    client, r = _launch(app, platform, "teacher", roles=(TEACHER,), email="prof@uni.example")
    assert r.status_code == 303
    assert client.get("/").headers["location"] == "/class"
    assert "Class view" in client.get("/class").text


@pytest.mark.parametrize(("over", "says"), [
    ({"iss": "https://other-lms.example"}, "not registered with"),
    ({"aud": "someone-elses-tool"}, "audience is not this course's client_id"),
    ({"aud": [CLIENT, "another"], "azp": "another"}, "azp is not this course's client_id"),
    ({"exp": int((NOW - timedelta(minutes=5)).timestamp())}, "has expired"),
    ({"iat": int((NOW + timedelta(hours=1)).timestamp())}, "issued in the future"),
    ({"key": _rsa()}, "signature does not verify"),
    ({CLAIM + "deployment_id": "9:other"}, "deployment this course is not registered with"),
    ({CLAIM + "message_type": "LtiDeepLinkingRequest"}, "resource link launches only"),
    ({"nonce": "a-nonce-this-login-never-asked-for"}, "nonce is not the one this login asked for"),
    ({"exp": None}, "no exp claim"),
])
def test_a_forged_or_stale_launch_is_refused_with_its_reason(lms, over, says):
    app, platform, _, _ = lms
    client, r = _launch(app, platform, "s1", **over)
    assert r.status_code == 403
    assert says in html.unescape(r.text)
    assert client.get("/").status_code == 401  # and no session was opened


def test_the_control_launch_with_the_same_helpers_is_accepted(lms):
    app, platform, _, _ = lms  # the negative cases above differ from this one by their one claim only
    _, r = _launch(app, platform, "s1")
    assert r.status_code == 303


def test_a_replayed_launch_is_refused(lms):
    app, platform, _, _ = lms
    client = TestClient(app, follow_redirects=False)
    state, nonce = _login(client)
    token = platform.id_token(nonce, "s1")
    assert client.post("/lti/launch", data={"id_token": token, "state": state}).status_code == 303
    again = TestClient(app, follow_redirects=False).post("/lti/launch", data={"id_token": token, "state": state})
    assert again.status_code == 403 and "state is unknown, used or expired" in again.text
    thief = TestClient(app, follow_redirects=False)
    fresh_state, _ = _login(thief)  # a new login's state does not make the old token new
    r = thief.post("/lti/launch", data={"id_token": token, "state": fresh_state})
    assert r.status_code == 403 and "replayed launch is refused" in r.text
    assert thief.get("/").status_code == 401


def test_a_login_state_expires(lms, clock):
    app, platform, _, _ = lms
    client = TestClient(app, follow_redirects=False)
    state, nonce = _login(client)
    clock.advance(11)
    r = client.post("/lti/launch", data={"id_token": platform.id_token(nonce, "s1", iat=int(clock.now.timestamp()),
                                                                       exp=int(clock.now.timestamp()) + 300),
                                         "state": state})
    assert r.status_code == 403 and "expired" in r.text


def test_a_login_from_another_platform_is_refused(lms):
    app, _, _, _ = lms
    r = TestClient(app, follow_redirects=False).post("/lti/login", data={"iss": "https://evil.example",
                                                                        "login_hint": "x"})
    assert r.status_code == 403 and "not registered with" in r.text


@pytest.mark.parametrize(("student", "over", "says"), [
    ("nobody", {}, "matches no student"),
    # e-mail names s1, the Canvas user id (a custom claim) names s2: two people, never guessed
    ("s1", {CLAIM + "custom": {"canvas_user_id": "s2"}}, "more than one student"),
    # the custom id names s1, the e-mail is one s1's roster row holds differently
    ("s1", {CLAIM + "custom": {"canvas_user_id": "s1"}, "email": "someone.else@uni.example"}, "not on another"),
    ("s1", {CLAIM + "roles": ["http://purl.imsglobal.org/vocab/lis/v2/membership#Mentor"]}, "neither a learner"),
])
def test_a_launch_that_names_no_single_roster_student_is_refused(lms, student, over, says):
    app, platform, _, _ = lms
    client, r = _launch(app, platform, student, **over)
    assert r.status_code == 403 and says in html.unescape(r.text)
    assert client.get("/").status_code == 401


def test_a_launch_matched_by_the_canvas_user_id_alone_signs_that_student_in(lms):
    app, platform, _, _ = lms
    client, r = _launch(app, platform, "s3", email=None, **{CLAIM + "custom": {"canvas_user_id": "s3"}})
    assert r.status_code == 303
    assert "Cy Three" in client.get("/").text


def test_the_passback_sends_each_students_own_score_to_their_own_user_id(lms):
    app, platform, course, passer = lms
    ada, _ = _launch(app, platform, "s1")
    bo, _ = _launch(app, platform, "s2")
    _upload(ada, "x = 1  # score 40\n")
    _upload(bo, "x = 1  # score 85\n")
    drain(app.state.svc.store, fake_grade)
    assert passer.send_due(NOW, released=course.released) == (2, 0)
    got = {s["userId"]: (s["scoreGiven"], s["scoreMaximum"], s["gradingProgress"]) for s in platform.scores}
    assert got == {SUBS["s1"]: (40.0, 100.0, "FullyGraded"), SUBS["s2"]: (85.0, 100.0, "FullyGraded")}
    assert passer.send_due(NOW, released=course.released) == (0, 0)  # sent once
    assert len(platform.scores) == 2


def test_a_failed_passback_stays_queued_and_is_retried_until_the_platform_takes_it(lms, clock):
    app, platform, course, passer = lms
    ada, _ = _launch(app, platform, "s1")
    _upload(ada, "x = 1  # score 40\n")
    drain(app.state.svc.store, fake_grade)
    platform.down = True
    assert passer.send_due(clock.now, released=course.released) == (0, 1)
    (p,) = LtiStore(app.state.svc.store).passbacks().values()
    assert p.state == "pending" and p.tries == 1 and "503" in p.error
    platform.down = False
    assert passer.send_due(clock.now, released=course.released) == (0, 0)  # not before its retry time
    _upload(ada, "x = 1  # score 90\n")  # a newer attempt meanwhile: it replaces the queued one
    drain(app.state.svc.store, fake_grade)
    clock.advance(1)
    assert passer.send_due(clock.now, released=course.released) == (1, 0)
    assert [(s["userId"], s["scoreGiven"]) for s in platform.scores] == [(SUBS["s1"], 90.0)]
    assert LtiStore(app.state.svc.store).passbacks()["s1"].state == "sent"


def test_a_passback_queued_by_a_server_that_died_is_sent_by_the_next(lms):
    app, platform, course, passer = lms
    ada, _ = _launch(app, platform, "s1")
    _upload(ada, "x = 1  # score 40\n")
    drain(app.state.svc.store, fake_grade)  # graded, then the server died before any passback round
    fresh = make_app(course, SECRET, grade=None)  # a new server over the same store
    again = Passer(course.lti, fresh.state.svc.store, client=passer.client)
    assert again.send_due(NOW, released=course.released) == (1, 0)
    assert [(s["userId"], s["scoreGiven"]) for s in platform.scores] == [(SUBS["s1"], 40.0)]


def test_nothing_is_passed_back_before_release_or_for_a_student_who_never_launched(lms, tmp_path):
    app, platform, course, passer = lms
    ada, _ = _launch(app, platform, "s1")
    _upload(ada, "x = 1  # score 40\n")
    drain(app.state.svc.store, fake_grade)
    assert passer.send_due(NOW, released=lambda now: False) == (0, 0)
    assert platform.scores == []
    from support.serving import sign_in, student  # s2 signs in by link: no LTI user id to send to

    bo, _ = sign_in(app, student("s2"))
    _upload(bo, "x = 1  # score 70\n")
    drain(app.state.svc.store, fake_grade)
    assert passer.send_due(NOW, released=lambda now: True) == (1, 0)
    assert [s["userId"] for s in platform.scores] == [SUBS["s1"]]


def test_the_tools_key_set_verifies_its_service_token_request(lms):
    app, _, _, passer = lms
    keys = TestClient(app).get("/lti/jwks").json()
    (key,) = keys["keys"]
    assert key["kid"] == "grader-1" and "d" not in key  # the public half only
    public = jwt.PyJWK(key).key
    claims = jwt.decode(passer.assertion(NOW), public, algorithms=["RS256"], audience=TOKEN_URL,
                        options={"verify_exp": False, "verify_iat": False})
    assert claims["iss"] == claims["sub"] == CLIENT


def test_scores_go_on_the_line_items_path_before_its_query():
    assert scores_url(LINEITEM) == "https://lms.example.edu/api/lti/courses/7/line_items/3/scores?type_id=1"
    assert scores_url("https://lms.example/li/3/") == "https://lms.example/li/3/scores"


def test_a_course_without_lti_refuses_launches(app):
    client = TestClient(app)
    assert client.post("/lti/login", data={"iss": ISS}).status_code == 404
    assert client.post("/lti/launch", data={"id_token": "x"}).status_code == 404


def test_an_lti_key_set_that_cannot_be_read_stops_the_start(lms, clock):
    _, _, course, _ = lms
    course.lti.key_set.write_text("not json")
    with pytest.raises(RubricError, match="platform's key set"):
        make_app(course, SECRET, grade=None, clock=clock)


def test_an_lti_section_with_a_bad_value_is_named_with_its_line(tmp_path):
    path = write_course(tmp_path, lti=json.dumps({"issuer": ISS, "client_id": CLIENT, "deployment_ids": [],
                                                  "auth_login_url": "ftp://x", "auth_token_url": TOKEN_URL,
                                                  "key_set": "k", "tool_key": "t", "redirect_uri": "https://g/"}))
    with pytest.raises(RubricError) as err:
        load_course(path)
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if text.startswith("lti:"))
    assert all(p.startswith(f"{path}:{line}:") for p in err.value.problems), err.value.problems
    said = " ".join(err.value.problems)
    assert "lti.deployment_ids" in said and "lti.auth_login_url" in said


def test_the_services_worker_grades_and_passes_back_on_its_own(lms, clock):
    """The running service: its worker thread grades the upload, then sends the grade, unasked."""
    import time

    _, platform, course, passer = lms
    app = make_app(course, SECRET, grade=fake_grade, clock=clock, passer=passer)
    with TestClient(app, follow_redirects=False) as client:  # the lifespan starts the worker
        state, nonce = _login(client)
        assert client.post("/lti/launch", data={"id_token": platform.id_token(nonce, "s3"),
                                                "state": state}).status_code == 303
        _upload(client, "x = 1  # score 64\n")
        for _ in range(600):  # waits for the state (a bounded poll), asserts nothing about time
            if platform.scores:
                break
            time.sleep(0.05)
    assert [(s["userId"], s["scoreGiven"]) for s in platform.scores] == [(SUBS["s3"], 64.0)]


def test_an_unreachable_platform_keeps_every_grade_queued_and_the_round_short(lms, clock):
    app, platform, course, passer = lms
    for key in ("s1", "s2"):
        client, _ = _launch(app, platform, key)
        _upload(client, f"x = 1  # score {10 if key == 's1' else 20}\n")
    drain(app.state.svc.store, fake_grade)
    platform.unreachable = True
    assert passer.send_due(clock.now, released=course.released) == (0, 1)
    assert platform.calls == 1  # the round stopped at the first unreachable call, not one timeout per student
    queued = LtiStore(app.state.svc.store).passbacks()
    assert {k: p.state for k, p in queued.items()} == {"s1": "pending", "s2": "pending"}
    assert "could not be reached" in queued["s1"].error
    platform.unreachable = False
    clock.advance(1)
    assert passer.send_due(clock.now, released=course.released) == (2, 0)
    assert sorted((s["userId"], s["scoreGiven"]) for s in platform.scores) == [(SUBS["s1"], 10.0), (SUBS["s2"], 20.0)]


def _instructor(app):
    from support.serving import sign_in

    from grader.serve.tokens import INSTRUCTOR

    return sign_in(app, INSTRUCTOR)


def test_an_overridden_score_is_what_is_passed_back_even_after_the_graded_one_was_sent(lms, clock):
    app, platform, course, passer = lms
    ada, _ = _launch(app, platform, "s1")
    where = _upload(ada, "x = 1  # score 40\n")
    drain(app.state.svc.store, fake_grade)
    assert passer.send_due(clock.now, released=course.released) == (1, 0)
    teacher, csrf = _instructor(app)
    clock.advance(5)
    r = teacher.post("/class/s1/override", data={"csrf": csrf, "submission": where.rsplit("/", 1)[1], "check": "",
                                                 "points": "55", "reason": "regrade request"})
    assert r.status_code == 303
    assert passer.send_due(clock.now, released=course.released) == (1, 0)
    assert [(s["userId"], s["scoreGiven"]) for s in platform.scores] == [(SUBS["s1"], 40.0), (SUBS["s1"], 55.0)]
    # Stamped with the override's time: a platform keeps the newest score by its timestamp.
    assert platform.scores[1]["timestamp"] > platform.scores[0]["timestamp"]
    assert passer.send_due(clock.now, released=course.released) == (0, 0)  # sent once


def test_a_manual_release_queues_the_passback(tmp_path, clock, lms):
    _, platform, course, _ = lms
    manual = course.model_copy(update={"release": "manual"})
    app = make_app(manual, SECRET, grade=None, clock=clock)
    passer = Passer(manual.lti, app.state.svc.store, client=httpx.Client(transport=httpx.MockTransport(platform.handle)))
    ada, _ = _launch(app, platform, "s1")
    _upload(ada, "x = 1  # score 40\n")
    drain(app.state.svc.store, fake_grade)
    svc = app.state.svc
    clock.now = manual.due + timedelta(minutes=1)
    assert passer.send_due(clock.now, released=svc.released) == (0, 0)  # past due, not released
    teacher, csrf = _instructor(app)
    assert teacher.post("/release", data={"csrf": csrf}).status_code == 303
    assert passer.send_due(clock.now, released=svc.released) == (1, 0)
    assert [(s["userId"], s["scoreGiven"]) for s in platform.scores] == [(SUBS["s1"], 40.0)]
