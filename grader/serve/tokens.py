"""Sign-in link tokens: derived from the secret (so `serve tokens` reprints the same ones) and kept
only as hashes by the service."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import NamedTuple


class Who(NamedTuple):
    role: str  # "student" or "instructor"
    key: str  # the roster key; "" for the instructor


INSTRUCTOR = Who("instructor", "")


def token_for(secret: str, who: Who) -> str:
    mac = hmac.new(secret.encode(), f"sign-in\0{who.role}\0{who.key}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode().rstrip("=")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def sign_ins(secret: str, students: list[str]) -> dict[str, Who]:
    """Token hash -> who may sign in with it."""
    people = [Who("student", k) for k in students] + [INSTRUCTOR]
    return {token_hash(token_for(secret, who)): who for who in people}


def visitor_csrf(secret: str, visitor: str) -> str:
    """A self-learner's CSRF token, derived from their cookie: a visit without an account writes nothing."""
    mac = hmac.new(secret.encode(), f"visitor-csrf\0{visitor}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac[:24]).decode().rstrip("=")
