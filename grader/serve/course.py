"""The course file: what one running service grades, for whom, and under which limits."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from grader.rubric.load import RubricError, parse_model


class SecretSource(BaseModel):
    """Where the secret is read from: exactly one of a file or an environment variable, never the secret."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    file: Path | None = None
    env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")

    @model_validator(mode="after")
    def _one(self) -> SecretSource:
        if (self.file is None) == (self.env is None):
            raise ValueError("name exactly one of file: (a path) or env: (a variable name)")
        return self


class RateLimit(BaseModel):
    """At most `attempts` submissions in any `minutes` minutes: the grader is no answer oracle."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    attempts: int = Field(ge=1)
    minutes: float = Field(gt=0)


class LtiMatch(BaseModel):
    """One launch claim read as one roster column: `claim` is a dotted path under the id_token
    ("email", "lis.person_sourcedid", "custom.canvas_user_id"), `roster` the RosterEntry field."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    claim: str = Field(min_length=1)
    roster: Literal["id", "email", "sis", "login"]


# Canvas puts the SIS id in lis.person_sourcedid and, with a custom field canvas_user_id=$Canvas.user.id,
# the user id its gradebook export calls ID; Moodle's worksheet id is a participant id no launch carries,
# so a Moodle course matches on e-mail.
DEFAULT_MATCH = (LtiMatch(claim="custom.canvas_user_id", roster="id"),
                 LtiMatch(claim="lis.person_sourcedid", roster="sis"), LtiMatch(claim="email", roster="email"))


class Lti(BaseModel):
    """One LTI 1.3 platform registration, as the LMS's developer-key page gives it to the instructor.
    `key_set` is the platform's public keys (a JWKS file, saved from the platform: nothing is fetched at
    run time); `tool_key` is this service's private RSA key (PEM), whose public half /lti/jwks serves."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    issuer: str = Field(min_length=1)
    client_id: str = Field(min_length=1)
    deployment_ids: list[str] = Field(min_length=1)
    auth_login_url: str = Field(pattern=r"^https?://")
    auth_token_url: str = Field(pattern=r"^https?://")
    key_set: Path
    tool_key: Path
    tool_key_id: str = "grader-1"
    redirect_uri: str = Field(pattern=r"^https?://")  # this service's /lti/launch, as registered
    match: list[LtiMatch] = Field(default_factory=lambda: list(DEFAULT_MATCH), min_length=1)


class Course(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    title: str = Field(min_length=1)
    # The assignment's title in the LMS, for Canvas's import column ("Title (id)" as its export heads it); default: title.
    assignment: str = ""
    rubric: Path
    roster: Path
    secret: SecretSource
    due: datetime
    max_attempts: int | None = Field(default=None, ge=1)
    rate_limit: RateLimit | None = None
    # immediate: the grade is shown as soon as it is graded; after_due: from the due date; manual: when the
    # instructor releases it in the class view, after the due date.
    release: Literal["immediate", "after_due", "manual"] = "after_due"
    max_upload_kb: int = Field(default=256, ge=1, le=1024)
    queue_limit: int = Field(default=500, ge=1)
    workers: int | None = Field(default=None, ge=1)  # grading processes; default: the cores this server may use
    store: Path = Path("course.sqlite")
    lti: Lti | None = None
    # Anyone who opens /quiz or /cards without signing in takes the chapter's quiz and recall cards, with
    # progress kept per browser. Off by default: a course server answers its roster only, unless its
    # instructor opens it to self-learners (each visitor who answers costs a row in the store and the judge's CPU).
    self_learners: bool = False

    @field_validator("due")
    @classmethod
    def _aware(cls, due: datetime) -> datetime:
        if due.tzinfo is None:
            raise ValueError("must carry a time zone, e.g. 2026-12-01T23:59:00+00:00")
        return due

    def released(self, now: datetime) -> bool:
        """By the policy alone (a manual release is kept in the store: `Service.released`)."""
        return self.release == "immediate" or (self.release == "after_due" and now >= self.due)


def load_course(path: str | Path) -> Course:
    """Relative paths in the file are read from the file's folder, so the service runs from anywhere."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise RubricError([f"{path}:1:1: cannot read the course file: {getattr(err, 'strerror', None) or err}"]) from None
    course = parse_model(text, str(path), Course)
    here = path.resolve().parent
    found = {k: here / getattr(course, k) for k in ("rubric", "roster", "store")}
    if course.secret.file is not None:
        found["secret"] = course.secret.model_copy(update={"file": here / course.secret.file})
    if course.lti is not None:
        found["lti"] = course.lti.model_copy(update={k: here / getattr(course.lti, k) for k in ("key_set", "tool_key")})
    return course.model_copy(update=found)


def read_secret(course: Course) -> str:
    """The secret, from where the course file says; a clear error, never its value, when absent."""
    src = course.secret
    if src.env is not None:
        value = os.environ.get(src.env, "")
        if not value:
            raise RubricError([f"the secret's variable ${src.env} is not set"])
        return value
    try:
        value = src.file.read_text(encoding="utf-8").strip()
    except OSError as err:
        raise RubricError([f"{src.file}: cannot read the secret: {err.strerror or err}"]) from None
    if not value:
        raise RubricError([f"{src.file}: the secret file is empty"])
    return value


def now() -> datetime:
    return datetime.now(UTC)


def roster_entries(course: Course) -> list:
    """The roster's students (grader.intake.roster's RosterEntry), as the class run reads them."""
    from grader.intake import roster
    from grader.intake.collect import InputError

    try:
        entries, _ = roster.read(course.roster)
    except InputError as err:
        raise RubricError([str(err)]) from None
    return entries


def roster_key(entry) -> str:
    """A student's key in the service: the LMS id, else the e-mail ("" : the row cannot sign in)."""
    return entry.id or entry.email


def students(course: Course) -> dict[str, str]:
    """Roster key -> display name; rows without a key cannot sign in."""
    return {roster_key(e): e.name or roster_key(e) for e in roster_entries(course) if roster_key(e)}
