"""Grade passback through LTI Assignment and Grade Services: each linked student's latest graded score,
with the instructor's overrides applied, POSTed to their line item with a service token, queued in the
store and retried until the platform takes it.

Facts from the specifications: the token is an OAuth 2 client-credentials grant whose client assertion
is a JWT signed with the tool's key, iss and sub the client_id, aud the token endpoint, with iat, exp
and a jti (1EdTech Security Framework 1.0, section 4.1, https://www.imsglobal.org/spec/security/v1p0/);
a score is POSTed to the line item's URL with `/scores` appended to its path, as
`application/vnd.ims.lis.v1.score+json` with userId (the launch's sub), scoreGiven, scoreMaximum,
activityProgress, gradingProgress and timestamp (AGS 2.0, section 3.4, Score publish service,
https://www.imsglobal.org/spec/lti-ags/v2p0/)."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import datetime, timedelta
from urllib.parse import urlsplit, urlunsplit

import httpx
import jwt

from grader.report.models import Report
from grader.serve.course import Lti
from grader.serve.grades import adjusted
from grader.serve.lti import SCORE_SCOPE, read_tool_key
from grader.serve.store import CourseStore, LtiStore, Passback

SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
RETRY_FIRST, RETRY_MOST = timedelta(seconds=30), timedelta(hours=1)


def scores_url(lineitem: str) -> str:
    """`/scores` goes on the path, before any query (Moodle's line items carry `?type_id=`)."""
    parts = urlsplit(lineitem)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def retry_at(now: datetime, tries: int) -> datetime:
    """Doubling from 30 s, at most an hour: an LMS that is down is not hammered, nor forgotten."""
    return now + min(RETRY_FIRST * 2 ** min(tries, 16), RETRY_MOST)


class Passer:
    """Sends what the store's passback queue holds; `client` is the HTTP client (tests give it a transport)."""

    def __init__(self, lti: Lti, store: CourseStore, *, client: httpx.Client | None = None):
        self.lti, self.store, self.links = lti, store, LtiStore(store)
        self.key = read_tool_key(lti)
        self.client = client or httpx.Client(timeout=20, follow_redirects=False)
        self._token: tuple[str, datetime] | None = None

    def assertion(self, now: datetime) -> str:
        claims = {"iss": self.lti.client_id, "sub": self.lti.client_id, "aud": self.lti.auth_token_url,
                  "iat": int(now.timestamp()), "exp": int((now + timedelta(minutes=5)).timestamp()),
                  "jti": secrets.token_urlsafe(16)}
        return jwt.encode(claims, self.key, algorithm="RS256", headers={"kid": self.lti.tool_key_id})

    def token(self, now: datetime) -> str:
        if self._token and self._token[1] > now:
            return self._token[0]
        r = self.client.post(self.lti.auth_token_url, data={
            "grant_type": "client_credentials",
            "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": self.assertion(now), "scope": SCORE_SCOPE})
        if r.status_code != 200:
            raise PassbackFailed(f"the platform's token endpoint answered {r.status_code}")
        try:
            body = r.json()
            token, life = str(body["access_token"]), float(body.get("expires_in", 3600))
        except (ValueError, KeyError, TypeError):
            raise PassbackFailed("the platform's token endpoint answered without an access_token") from None
        self._token = (token, now + timedelta(seconds=max(0.0, life - 60)))
        return token

    def post(self, p: Passback, report: Report, at: datetime, now: datetime) -> None:
        score = {"userId": p.user_id, "scoreGiven": report.score, "scoreMaximum": report.max_score,
                 "activityProgress": "Submitted", "gradingProgress": "FullyGraded",
                 "timestamp": at.isoformat(timespec="milliseconds")}
        r = self.client.post(scores_url(p.lineitem), json=score, headers={
            "Authorization": f"Bearer {self.token(now)}", "Content-Type": SCORE_TYPE})
        if r.status_code == 401:
            self._token = None  # a token the platform no longer takes: a fresh one on the next try
        if r.status_code not in (200, 201, 202, 204):
            raise PassbackFailed(f"the platform's scores service answered {r.status_code}")

    def send_due(self, now: datetime, *, released: Callable[[datetime], bool]) -> tuple[int, int]:
        """Queues the latest graded attempts, then sends each due one; (sent, failed). Nothing is sent
        before the grades are released."""
        self.links.queue()
        if not released(now):
            return 0, 0
        sent = failed = 0
        for p in self.links.due(now):
            s = self.store.get(p.submission)
            if s is None or s.student != p.student or s.report is None:  # a queue row that is not its student's
                self.links.held(p, "the attempt is not this student's graded attempt")
                continue
            counted = adjusted(self.store, s)  # the instructor's overrides applied: the grade as it counts
            if counted.result.report is None:
                self.links.held(p, "the grader failed on this attempt: no score to send")
                continue
            # Stamped with the latest override's time: a platform keeps a score only if it is newer than the one
            # it holds (AGS 2.0, Score publish service, `timestamp`), so an override after a sent grade lands.
            at = max([s.at, *(k.at for k in counted.kept)])
            try:
                self.post(p, counted.result.report, at, now)
            except PassbackFailed as err:
                self.links.failed(p, str(err), retry_at(now, p.tries))
                failed += 1
                continue
            except httpx.HTTPError as err:
                # Unreachable: the others would wait out the same timeout; they stay due for the next round.
                self.links.failed(p, f"the platform could not be reached ({type(err).__name__})", retry_at(now, p.tries))
                return sent, failed + 1
            sent += self.links.sent(p)
        return sent, failed


class PassbackFailed(Exception):
    pass
