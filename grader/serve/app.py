"""The web app: sign-in by link token, upload, the student's report and history, the class view.

Grading happens elsewhere (the worker processes of `pool`, or one thread for tests and embedding); a
report is rendered once per reader and kept in the store, since its pictures cost more CPU than
grading the file, and a waiting page long-polls (`waiting`) instead of reloading itself."""

from __future__ import annotations

import asyncio
import hmac
import logging
import re
import secrets
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from grader.report.html import render_fragment
from grader.report.models import Report
from grader.serve import course as course_mod
from grader.serve.course import Course
from grader.serve.grades import COUNTS, EXPORTS, adjusted, counted, labels, report_of
from grader.serve.store import MAX_ABANDONED, CourseStore, KeptOverride, QueueFull, Submission, next_allowed
from grader.serve.tokens import Who, sign_ins, token_hash, visitor_csrf
from grader.serve.waiting import NO_SCRIPT_REFRESH_S, RECHECK_S, SCRIPT, SCRIPT_SRC, WAIT_S, Waiting
from grader.serve.worker import Grade, drain, start_worker

if TYPE_CHECKING:
    from grader.serve.passback import Passer
    from grader.serve.pool import Workers

COOKIE = "grader_session"
_log = logging.getLogger("grader.serve")
_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
# A student is told that the grader failed and what to do, never the grader's own error (it names its code).
GRADER_FAILED = ("The grader could not grade this attempt: it failed on the file, this is not your score. "
                 "Ask your instructor, who can see why; your other attempts are not affected.")
_templates = Environment(loader=PackageLoader("grader.serve", "templates"), autoescape=select_autoescape(["html"]))


class Service:
    """What the routes share: the course, the store, who may sign in, the worker's wake-up call."""

    def __init__(self, course: Course, secret: str, *, store: CourseStore, clock: Callable[[], datetime]):
        self.course, self.store, self.clock = course, store, clock
        self.names = course_mod.students(course)
        self.labels = labels(course)  # "Lee, Sam (5001)": the name with the id, as the CLI tells two apart
        self.tokens = sign_ins(secret, list(self.names))
        self.visitor_csrf: Callable[[str], str] = lambda visitor: visitor_csrf(secret, visitor)
        self.wake = threading.Event()  # the worker thread's, when grading runs in this process
        self.workers: Workers | None = None  # the worker processes, when grading runs in them
        self.waiting, self.wait_s, self.recheck_s = Waiting(), WAIT_S, RECHECK_S
        self.graded_any = threading.Event()  # the worker graded something: the passback looks at once
        self.stopping = threading.Event()
        self.lti_keys = self.entries = None
        if course.lti is not None:  # a key set or roster that cannot be read stops the start, not a launch
            from grader.serve.lti import read_key_set

            self.lti_keys, self.entries = read_key_set(course.lti), course_mod.roster_entries(course)

    def who(self, request: Request) -> tuple[Who, str] | None:
        sid = request.cookies.get(COOKIE)
        found = self.store.session(token_hash(sid)) if sid else None
        return (Who(found[0], found[1]), found[2]) if found else None

    def page(self, template: str, status: int = 200, *, script: bool = False, **values) -> HTMLResponse:
        """`script`: the page carries the waiting script, the one script its policy lets run."""
        html = _templates.get_template(template).render(course_title=self.course.title, script=script and SCRIPT,
                                                        no_script_refresh=NO_SCRIPT_REFRESH_S, **values)
        csp = _CSP + (f"; script-src {SCRIPT_SRC}; connect-src 'self'" if script else "")
        return HTMLResponse(html, status_code=status, headers={"Content-Security-Policy": csp,
                                                                "Cache-Control": "no-store"})

    def queued(self) -> None:
        """An upload is in the queue: wake whoever grades."""
        self.wake.set()
        if self.workers is not None:
            self.workers.wake()

    def graded(self, submission: int) -> None:
        """A worker graded `submission` (from any thread): its waiters hear it, the passback looks."""
        self.waiting.graded(submission)
        self.graded_any.set()

    def released(self, now: datetime | None = None) -> bool:
        """Grades are out: by the course's policy, or (manual) once the instructor released them here."""
        now = now or self.clock()
        return self.course.released(now) or (self.course.release == "manual" and self.store.released_at() is not None)

    def readable(self, who: Who, submission: int) -> Submission | None:
        """The attempt if `who` may read it: the instructor any, a student only their own."""
        s = self.store.get(submission)
        return s if s is not None and (who.role == "instructor" or s.student == who.key) else None

    async def fragment(self, s: Submission, *, audience: str, published: bool) -> Markup:
        """The graded report for this reader: rendered once (by the worker, or here the first time, off
        the event loop) and then read from the store."""
        key = (audience, published)
        html = self.store.page(s.id, key)
        if html is None:
            report = report_of(self.store, s)  # the instructor's overrides applied, with their reasons
            html = await run_in_threadpool(render_fragment, report, audience=audience, published=published)
            self.store.keep_page(s.id, key, html)
        return Markup(html)

    def result(self, s: Submission, *, instructor: bool) -> str:
        report = report_of(self.store, s)
        if report is None:
            return ""
        if report.status == "grader_error":
            return "the grader failed on this file"
        if instructor or self.released():
            return f"{report.score:g} / {report.max_score:g}"
        return "graded (score released later)"

    def refusal(self, student: str) -> str | None:
        """Why `student` may not submit now, with when they may; None: they may."""
        found = self.refused(student)
        return found[1] if found else None

    def refused(self, student: str) -> tuple[int, str] | None:
        """The refusal with its HTTP status: 403 for closed (due date, attempts used: no retry helps), 429
        only for the rate limit (a later try does)."""
        now, c = self.clock(), self.course
        if now >= c.due:
            return 403, f"The due date ({c.due.isoformat()}) has passed; submissions are closed."
        if c.max_attempts is not None and self.store.count(student) >= c.max_attempts:
            return 403, f"You have used all {c.max_attempts} attempts."
        if c.rate_limit is not None:
            window = timedelta(minutes=c.rate_limit.minutes)
            at = next_allowed(self.store.attempts_since(student, now - window), limit=c.rate_limit.attempts,
                              window=window)
            if at is not None and at > now:
                return 429, (f"At most {c.rate_limit.attempts} attempts in {c.rate_limit.minutes:g} minutes: "
                             f"your next attempt is allowed at {at.isoformat(timespec='seconds')}.")
        return None


def _rows(svc: Service, history: list[Submission], *, instructor: bool) -> list[dict]:
    return [{"id": s.id, "at": s.at.isoformat(timespec="seconds"), "state": s.state,
             "result": svc.result(s, instructor=instructor)} for s in history]


def _denied(svc: Service, status: int, message: str) -> HTMLResponse:
    return svc.page("message.html", status, message=message, who=None, back="/")


async def home(request: Request) -> Response:
    svc: Service = request.app.state.svc
    found = svc.who(request)
    if found is None:
        return svc.page("message.html", 401, message="Sign in with the link your instructor sent you.", who=None,
                        learn=svc.course.self_learners)
    who, csrf = found
    if who.role == "instructor":
        return RedirectResponse("/class", 303)
    history = svc.store.history(who.key)
    c = svc.course
    left = None if c.max_attempts is None else max(0, c.max_attempts - len(history))
    return svc.page("student.html", who=svc.labels.get(who.key, who.key), csrf=csrf, due=c.due.isoformat(),
                    attempts_left=left, refusal=svc.refusal(who.key), max_kb=c.max_upload_kb,
                    history=_rows(svc, history, instructor=False))


async def sign_in(request: Request) -> Response:
    svc: Service = request.app.state.svc
    token = request.query_params.get("token", "")
    who = svc.tokens.get(token_hash(token)) if token else None
    if who is None:
        return _denied(svc, 403, "This sign-in link is not valid; ask your instructor for yours.")
    return _signed_in(svc, who, request)


def _signed_in(svc: Service, who: Who, request: Request) -> Response:
    sid, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    svc.store.open_session(token_hash(sid), who.role, who.key, csrf)
    response = RedirectResponse("/", 303)
    # Lax, not Strict: the link is opened from an e-mail or the LMS, and Strict would drop the cookie on
    # that first redirect; every POST checks the CSRF token anyway.
    response.set_cookie(COOKIE, sid, httponly=True, samesite="lax", secure=request.url.scheme == "https")
    return response


async def _small_form(request: Request) -> dict[str, str] | None:
    """An LMS's form post (no session, no CSRF token: the signed id_token and the state stand for them)."""
    if request.method == "GET":
        return dict(request.query_params)
    length = request.headers.get("content-length")
    if length is None or not length.isdigit() or int(length) > 64 * 1024:
        return None
    form = await request.form(max_files=0, max_fields=16, max_part_size=64 * 1024)
    return {k: v for k, v in form.items() if isinstance(v, str)}


async def lti_login(request: Request) -> Response:
    """LTI 1.3 login initiation: the platform names itself; the browser goes on to its OIDC endpoint."""
    from grader.serve.lti import LaunchRefused, login_redirect
    from grader.serve.store import LtiStore

    svc: Service = request.app.state.svc
    if svc.course.lti is None:
        return _denied(svc, 404, "This course takes no LTI launches.")
    params = await _small_form(request)
    if params is None:
        return _denied(svc, 413, "The platform's login request is too large.")
    try:
        url = login_redirect(svc.course.lti, params, LtiStore(svc.store), svc.clock())
    except LaunchRefused as why:
        return _denied(svc, 403, str(why))
    return RedirectResponse(url, 302)


async def lti_launch(request: Request) -> Response:
    """The platform's form post of the id_token: checked, matched to the roster, then signed in."""
    from grader.serve.lti import LaunchRefused, identify, validate
    from grader.serve.store import LtiStore

    svc: Service = request.app.state.svc
    lti = svc.course.lti
    if lti is None:
        return _denied(svc, 404, "This course takes no LTI launches.")
    form = await _small_form(request)
    if form is None:
        return _denied(svc, 413, "The launch is too large.")
    states = LtiStore(svc.store)
    try:
        claims = validate(lti, svc.lti_keys, form.get("id_token", ""), form.get("state", ""), states, svc.clock())
        launch = identify(lti, claims, svc.entries)
    except LaunchRefused as why:
        return _denied(svc, 403, str(why))
    if launch.who.role == "student" and launch.lineitem:
        states.link(launch.who.key, launch.user_id, launch.lineitem)
        svc.graded_any.set()  # a grade already there goes to this line item now
    return _signed_in(svc, launch.who, request)


async def lti_jwks(request: Request) -> Response:
    """The tool's public key, for the platform to check the service-token requests the passback signs."""
    from starlette.responses import JSONResponse

    svc: Service = request.app.state.svc
    if svc.course.lti is None:
        return _denied(svc, 404, "This course takes no LTI launches.")
    from jwt.algorithms import RSAAlgorithm

    from grader.serve.lti import read_tool_key

    jwk = RSAAlgorithm.to_jwk(read_tool_key(svc.course.lti).public_key(), as_dict=True)
    return JSONResponse({"keys": [{**jwk, "kid": svc.course.lti.tool_key_id, "alg": "RS256", "use": "sig"}]})


async def _posted(request: Request, svc: Service) -> tuple[Who, dict] | Response:
    """A POST's form, once the session and its CSRF token are checked and the body is under the cap."""
    found = svc.who(request)
    if found is None:
        return _denied(svc, 401, "Sign in with the link your instructor sent you.")
    who, csrf = found
    cap = svc.course.max_upload_kb * 1024
    form = await checked_form(request, svc, csrf, body=cap + 16 * 1024, part=cap + 1, max_files=1,
                              too_large=f"Uploads are limited to {svc.course.max_upload_kb} KB.")
    return form if isinstance(form, Response) else (who, form)


async def checked_form(request: Request, svc: Service, csrf: str, *, body: int, part: int, max_files: int,
                       too_large: str) -> dict | Response:
    """A POST's form once its body is at most `body` bytes (each part `part`) and it carries `csrf`."""
    length = request.headers.get("content-length")
    if length is None or not length.isdigit() or int(length) > body:
        return _denied(svc, 413, too_large)
    form = await request.form(max_files=max_files, max_fields=8, max_part_size=part)
    if not hmac.compare_digest(str(form.get("csrf", "")), csrf):
        return _denied(svc, 403, "This form has expired; reload the page and submit again.")
    return form


async def submit(request: Request) -> Response:
    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    (who, form), cap = got, svc.course.max_upload_kb * 1024
    if who.role != "student":
        return _denied(svc, 403, "Only students submit.")
    upload = form.get("file")
    if upload is not None and not isinstance(upload, str) and upload.filename:
        source = await upload.read(cap + 1)
        filename = upload.filename
    else:
        source, filename = str(form.get("code", "")).encode("utf-8"), "attention.py"
    if len(source) > cap:
        return _denied(svc, 413, f"Uploads are limited to {svc.course.max_upload_kb} KB.")
    if not source.strip():
        return svc.page("message.html", 400, message="Choose a .py file or paste your code.", back="/")
    if not filename.endswith((".py", ".ipynb")):
        return svc.page("message.html", 400, message="Upload a .py file or a notebook (.ipynb).", back="/")
    if (refused := svc.refused(who.key)) is not None:
        return svc.page("message.html", refused[0], message=refused[1], back="/")
    try:
        sid = svc.store.enqueue(who.key, _safe_name(filename), source, svc.clock(), limit=svc.course.queue_limit)
    except QueueFull:
        return svc.page("message.html", 503, message="The grader is busy; try again in a minute.", back="/")
    svc.queued()
    return RedirectResponse(f"/submissions/{sid}", 303)


def _safe_name(filename: str) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]", "_", filename.replace("\\", "/").rsplit("/", 1)[-1]).lstrip(".")
    return name if len(name) > 3 else "attention.py"


async def submission(request: Request) -> Response:
    svc: Service = request.app.state.svc
    found = svc.who(request)
    if found is None:
        return _denied(svc, 401, "Sign in with the link your instructor sent you.")
    who, csrf = found
    s = svc.readable(who, int(request.path_params["id"]))
    if s is None:
        return _denied(svc, 404, "No such attempt.")  # another student's attempt does not exist for you
    instructor = who.role == "instructor"
    history = svc.store.history(s.student)
    number = [h.id for h in history].index(s.id) + 1
    fragment = change = failed = None
    audience, published = ("instructor" if instructor else "student"), instructor or svc.released()
    if s.report is not None:
        fragment = await svc.fragment(s, audience=audience, published=published)
        if (error := Report.model_validate_json(s.report).error) is not None:  # a grader error, said plainly
            failed = f"Why: {error}" if instructor else GRADER_FAILED
        if number > 1:
            change = _change(svc, history[number - 2], s, number, audience=audience, published=published)
    back = f"/class/{s.student}" if instructor else "/"
    return svc.page("report.html", who=svc.labels.get(who.key, "instructor"), csrf=csrf, fragment=fragment,
                    student=svc.labels.get(s.student, s.student) if instructor else None,
                    state=s.state, number=number, back=back, refresh=fragment is None, change=change, failed=failed,
                    script=fragment is None, wait=f"/submissions/{s.id}/wait")


async def wait(request: Request) -> Response:
    """The long poll: `{"state": ...}` once the attempt is graded, or after at most `wait_s` seconds."""
    svc: Service = request.app.state.svc
    found = svc.who(request)
    if found is None:
        return JSONResponse({"error": "not signed in"}, 401)
    s = svc.readable(found[0], int(request.path_params["id"]))
    if s is None:
        return JSONResponse({"error": "no such attempt"}, 404)  # the same answer as for one that does not exist
    loop = asyncio.get_running_loop()
    end = loop.time() + svc.wait_s
    while s.state != "graded" and (left := end - loop.time()) > 0:
        await svc.waiting.until_graded(s.id, min(left, svc.recheck_s))
        s = svc.store.get(s.id)
    return JSONResponse({"state": s.state}, headers={"Cache-Control": "no-store"})


def _change(svc: Service, before: Submission, after: Submission, number: int, *, audience: str, published: bool):
    """The previous attempt (one of the same student's, by construction) against this one."""
    from grader.serve.attempts import between

    def side(s: Submission):
        return (s.filename, svc.store.source(s.id) or b"",
                report_of(svc.store, s))

    return between(number, side(before), side(after), audience=audience, published=published)


def _instructor(request: Request, svc: Service) -> tuple[Who, str] | Response:
    found = svc.who(request)
    if found is None:
        return _denied(svc, 401, "Sign in with the instructor's link.")
    if found[0].role != "instructor":
        return _denied(svc, 403, "This page is the instructor's.")
    return found


async def class_view(request: Request) -> Response:
    from grader.batch.names import student_label
    from grader.intake.collect import InputError
    from grader.serve.grades import class_results, export

    svc: Service = request.app.state.svc
    got = _instructor(request, svc)
    if isinstance(got, Response):
        return got
    rows = []
    for r in sorted(class_results(svc.course, svc.store), key=lambda r: (r.student.name, r.student.key)):
        rep = r.report
        rows.append({"key": r.student.key, "name": student_label(r.student),
                     "attempts": svc.store.count(r.student.key),
                     "result": f"{rep.score:g} / {rep.max_score:g}" if rep else r.status.replace("_", " "),
                     "notes": [n for n in r.student.notes if n != "no submission"]})
    left_out = {}
    for fmt in ("canvas", "moodle"):
        try:
            left_out[EXPORTS[fmt]] = export(svc.course, svc.store, fmt, published=svc.released())[1]
        except InputError as err:
            left_out[EXPORTS[fmt]] = [str(err)]
    c, now = svc.course, svc.clock()
    return svc.page("class.html", who="instructor", csrf=got[1], rows=rows, counts=COUNTS, exports=EXPORTS,
                    left_out=left_out, manual=c.release == "manual", released_at=svc.store.released_at(),
                    due=c.due.isoformat(), due_passed=now >= c.due, released=svc.released(now),
                    label=student_label)


def _history_rows(svc: Service, history: list[Submission]) -> list[dict]:
    """Each attempt as the instructor reads it: its grade with the overrides made for it, who made each,
    when and why, and what the CLI would say of them (a total above a severity band's cap)."""
    from grader.report.view import adjustment_text

    kept = svc.store.overrides(history[0].student) if history else []
    replaced = svc.store.replaced_overrides(history[0].student) if history else []
    rows = []
    for row, s in zip(_rows(svc, history, instructor=True), history, strict=True):
        a = adjusted(svc.store, s, kept=kept) if s.state == "graded" else None
        rep = a.result.report if a is not None else None
        graded = Report.model_validate_json(s.report) if rep is not None else None
        row.update(checks=rep.checks if rep else [], max_score=rep.max_score if rep else 0,
                   was=f"{graded.score:g} / {graded.max_score:g}" if graded and a.kept else "",
                   overrides=[{"text": adjustment_text(adj, rep), "by": k.by,
                               "at": k.at.isoformat(timespec="seconds")} for adj, k in
                              zip(rep.adjustments, a.kept, strict=True)] if rep else [],
                   replaced=[_replaced_text(k, rep) for k in replaced if rep and a.result.student.source_sha256
                             == k.override.source_sha256],
                   notes=a.notes if a else [])
        rows.append(row)
    return rows


def _replaced_text(k: KeptOverride, report: Report) -> str:
    """An override that a later one of the same attempt and target replaced: what it set, who, when, why."""
    o = k.override
    title = next((c.title for c in report.checks if c.id == o.check), o.check)
    what = f"\u201c{title}\u201d set to {o.points:g} points" if o.check else f"the total set to {o.points:g}"
    return (f"replaced: {what}: {o.reason} ({k.by}, {k.at.isoformat(timespec='seconds')}), "
            f"replaced at {k.replaced_at.isoformat(timespec='seconds')}")


async def student_history(request: Request) -> Response:
    svc: Service = request.app.state.svc
    got = _instructor(request, svc)
    if isinstance(got, Response):
        return got
    key = request.path_params["student"]
    if key not in svc.names:
        return _denied(svc, 404, "No such student on the roster.")
    history = svc.store.history(key)
    counts = counted(history)
    return svc.page("history.html", who="instructor", csrf=got[1], student=svc.labels[key], key=key,
                    history=_history_rows(svc, history), counts=COUNTS, counted=counts.id if counts else None)


async def override(request: Request) -> Response:
    """The instructor's override of one attempt's total or one check, with its reason: the CLI's record,
    checked by the CLI's own rules, kept with who made it and when."""
    from grader.batch.overrides import new_override
    from grader.intake.collect import InputError
    from grader.serve.grades import as_result

    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    who, form = got
    if who.role != "instructor":
        return _denied(svc, 403, "This page is the instructor's.")
    key, back = request.path_params["student"], f"/class/{request.path_params['student']}"
    number = str(form.get("submission", ""))
    s = svc.store.get(int(number)) if number.isdigit() else None
    if key not in svc.names or s is None or s.student != key:
        return _denied(svc, 404, "No such attempt of this student.")
    if s.state != "graded":
        return svc.page("message.html", 400, message="This attempt is not graded yet: there is nothing to adjust.",
                        back=back)
    history = svc.store.history(key)
    counts = counted(history)
    if counts is not None and s.id != counts.id:  # it would be kept and never applied: refused, said plainly
        ids = [h.id for h in history]
        mine, theirs = ids.index(s.id) + 1, ids.index(counts.id) + 1
        return svc.page("message.html", 409, back=back, message=(
            f"Only the attempt that counts can be overridden: attempt {mine} does not count, the gradebook and the "
            f"LMS take {COUNTS} (attempt {theirs}). Make the override on attempt {theirs}."))
    check = str(form.get("check", "")).strip()
    try:
        points = float(str(form.get("points", "")).strip())
    except ValueError:
        return svc.page("message.html", 400, message="The points must be a number.", back=back)
    try:
        made = new_override(as_result(svc.store, s), reason=str(form.get("reason", "")), check=check,
                            score=None if check else points, points=points if check else None, by_title=True)
    except InputError as err:
        return svc.page("message.html", 400, message=str(err), back=back)
    svc.store.put_override(made, by=who.key or "instructor", at=svc.clock())
    svc.graded_any.set()  # the passback sends the grade as it now counts
    return RedirectResponse(f"{back}#attempt-{s.id}", 303)


async def gradebook_export(request: Request) -> Response:
    """One download per format: the class run's gradebook.csv, or an LMS's import file (the CLI's `--lms`)."""
    from grader.intake.collect import InputError
    from grader.serve.grades import export

    svc: Service = request.app.state.svc
    got = _instructor(request, svc)
    if isinstance(got, Response):
        return got
    fmt = request.path_params["fmt"]
    if fmt not in EXPORTS:
        return _denied(svc, 404, "No such export.")
    try:
        text, _ = export(svc.course, svc.store, fmt, published=svc.released())
    except InputError as err:
        return svc.page("message.html", 409, message=str(err), back="/class")
    return Response(text, media_type="text/csv; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="{EXPORTS[fmt]}"', "Cache-Control": "no-store"})


async def release(request: Request) -> Response:
    """Releases the grades of a course whose release is manual, once its due date has passed."""
    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    who, _ = got
    if who.role != "instructor":
        return _denied(svc, 403, "This page is the instructor's.")
    c, now = svc.course, svc.clock()
    if c.release != "manual":
        return svc.page("message.html", 409, back="/class", message=(
            f"This course's file says release: {c.release}; grades are released by that policy, not by hand."))
    if now < c.due:
        return svc.page("message.html", 409, back="/class", message=(
            f"Grades can be released once the due date ({c.due.isoformat()}) has passed; students may still submit."))
    svc.store.release(now, by=who.key or "instructor")
    svc.graded_any.set()  # the passback queues and sends every linked student's grade now
    return RedirectResponse("/class", 303)


async def sign_out(request: Request) -> Response:
    svc: Service = request.app.state.svc
    got = await _posted(request, svc)
    if isinstance(got, Response):
        return got
    svc.store.close_session(token_hash(request.cookies[COOKIE]))
    response = RedirectResponse("/", 303)
    response.delete_cookie(COOKIE)
    return response


def _work(svc: Service, grade: Grade) -> None:
    """Grading in this process (tests, embedding): one thread, sharing the interpreter with the pages."""
    from grader.serve.worker import student_pages

    worker, present = start_worker(svc.store), student_pages(svc.course, svc.clock)
    while not svc.stopping.is_set():
        svc.wake.clear()  # before draining: an upload during the drain wakes the next round at once
        drain(svc.store, grade, worker=worker, present=present, graded=svc.graded)
        svc.wake.wait(timeout=1.0)


def _pass_back(svc: Service, passer: Passer) -> None:
    """Its own thread: an LMS that is slow or down delays the passback, never the grading."""
    while not svc.stopping.is_set():
        svc.graded_any.clear()
        try:
            passer.send_due(svc.clock(), released=svc.released)
        except Exception as err:  # the queue in the store keeps every grade; the next round retries
            _log.warning("grade passback round failed (%s); it is retried", type(err).__name__)
        svc.graded_any.wait(timeout=5.0)


def _lost(svc: Service, pid: int, status: int) -> None:
    """A worker process ended while the server runs: its claim goes back to the others (a replacement
    is on its way from the nursery), or is given up on as a grader error after `MAX_ABANDONED` tries."""
    freed = svc.store.requeue_abandoned(given_up=svc.graded)
    left = len(svc.workers.sockets) if svc.workers is not None else 0
    _log.warning("grading worker %d ended (status %d); %d claim(s) freed (re-queued, or given up after %d tries); "
                 "%d worker(s) left", pid, status, freed, MAX_ABANDONED, left)
    if left:
        svc.queued()


async def not_found(request: Request, exc: Exception) -> Response:
    """A path no route takes (`/submissions/2a`): the styled page, as for an attempt that does not exist."""
    return _denied(request.app.state.svc, 404, "No such page.")


def make_app(course: Course, secret: str, *, grade: Grade | None, store: CourseStore | None = None,
             clock: Callable[[], datetime] = course_mod.now, passer: Passer | None = None,
             workers: Workers | None = None) -> Starlette:
    """`workers`: the grading processes (the service); else `grade`: one worker thread in this process;
    neither: no worker (tests drive the queue and the passback themselves)."""
    svc = Service(course, secret, store=store or CourseStore(course.store), clock=clock)
    svc.workers = workers
    grading = grade is not None or workers is not None
    if passer is None and grading and course.lti is not None:
        from grader.serve.passback import Passer

        passer = Passer(course.lti, svc.store)

    @asynccontextmanager
    async def lifespan(app):
        loop = asyncio.get_running_loop()
        svc.waiting.bind(loop)
        if workers is not None:
            workers.attach(loop, svc.graded, lost=lambda pid, status: _lost(svc, pid, status))
        threads = [threading.Thread(target=_work, args=(svc, grade), name="grader-worker", daemon=True)] if grade else []
        if passer is not None and grading:
            threads.append(threading.Thread(target=_pass_back, args=(svc, passer), name="grader-passback", daemon=True))
        for t in threads:
            t.start()
        yield
        svc.stopping.set()
        svc.wake.set()
        svc.graded_any.set()
        for t in threads:
            t.join(timeout=60)
        if workers is not None:
            workers.close(loop)  # the server is stopping: nothing else waits on the loop

    from grader.serve.learn import ROUTES as learning

    app = Starlette(routes=[
        Route("/", home), Route("/sign-in", sign_in), Route("/submit", submit, methods=["POST"]),
        Route("/submissions/{id:int}", submission), Route("/submissions/{id:int}/wait", wait),
        Route("/class", class_view),
        Route("/class/{student}", student_history), Route("/class/{student}/override", override, methods=["POST"]),
        Route("/exports/{fmt}", gradebook_export), Route("/release", release, methods=["POST"]),
        Route("/sign-out", sign_out, methods=["POST"]),
        Route("/lti/login", lti_login, methods=["GET", "POST"]), Route("/lti/launch", lti_launch, methods=["POST"]),
        Route("/lti/jwks", lti_jwks), *learning,
    ], lifespan=lifespan, exception_handlers={404: not_found})
    app.state.svc = svc
    return app
