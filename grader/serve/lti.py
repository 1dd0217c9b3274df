"""LTI 1.3 launch: OIDC login initiation, then the platform's id_token checked against the key set the
instructor saved, then the LMS user matched to a roster row, as the class run matches an export's rows.

Facts from the specifications (1EdTech, LTI Core 1.3, https://www.imsglobal.org/spec/lti/v1p3/, and the
Security Framework 1.0, https://www.imsglobal.org/spec/security/v1p0/): the platform starts with a login
request (iss, login_hint, target_link_uri, optional lti_message_hint, client_id, lti_deployment_id); the
tool answers with an OIDC authentication request (scope=openid, response_type=id_token,
response_mode=form_post, prompt=none, state, nonce); the platform form-posts id_token and state back. The
id_token is an RS256 JWT whose iss, aud (the client_id; with several audiences azp names it), exp, iat,
nonce and the deployment_id, message_type and version claims the tool must check."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import jwt

from grader.rubric.load import RubricError
from grader.serve.course import Lti, roster_key
from grader.serve.store import LtiStore
from grader.serve.tokens import INSTRUCTOR, Who

CLAIM = "https://purl.imsglobal.org/spec/lti/claim/"
AGS_CLAIM = "https://purl.imsglobal.org/spec/lti-ags/claim/endpoint"
SCORE_SCOPE = "https://purl.imsglobal.org/spec/lti-ags/scope/score"
# LIS role URIs (LTI Core 1.3, appendix A.2): context roles, and the short forms the spec still allows.
INSTRUCTOR_ROLES = {"http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor", "Instructor"}
LEARNER_ROLES = {"http://purl.imsglobal.org/vocab/lis/v2/membership#Learner", "Learner"}
STATE_LIFE = timedelta(minutes=10)  # from the login to the launch: one browser round trip
CLOCK_SKEW = timedelta(seconds=60)


class LaunchRefused(Exception):
    """Why a launch is refused, in words for the person in front of the browser (no secret in it)."""


def read_key_set(lti: Lti) -> jwt.PyJWKSet:
    try:
        return jwt.PyJWKSet.from_dict(json.loads(lti.key_set.read_text(encoding="utf-8")))
    except (OSError, ValueError, jwt.PyJWKSetError) as err:
        raise RubricError([f"{lti.key_set}: not the platform's key set (a JWKS file with its RSA public keys): "
                           f"{getattr(err, 'strerror', None) or err}"]) from None


def read_tool_key(lti: Lti):
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    try:
        return load_pem_private_key(lti.tool_key.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as err:
        raise RubricError([f"{lti.tool_key}: not the tool's private key (an unencrypted PEM RSA key): "
                           f"{getattr(err, 'strerror', None) or err}"]) from None


def login_redirect(lti: Lti, params: dict[str, str], states: LtiStore, now: datetime) -> str:
    """The OIDC authentication request the browser is sent on to, with a fresh state and nonce kept."""
    if params.get("iss") != lti.issuer:
        raise LaunchRefused("This launch came from a platform this course is not registered with.")
    if params.get("client_id", lti.client_id) != lti.client_id:
        raise LaunchRefused("This launch is for another tool (its client_id is not this course's).")
    if "lti_deployment_id" in params and params["lti_deployment_id"] not in lti.deployment_ids:
        raise LaunchRefused("This launch comes from a deployment this course is not registered with.")
    if not params.get("login_hint"):
        raise LaunchRefused("The platform's login request has no login_hint; open the assignment from the LMS again.")
    state, nonce = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    states.open_state(state, nonce, now, forget_before=now - STATE_LIFE)
    query = {"scope": "openid", "response_type": "id_token", "response_mode": "form_post", "prompt": "none",
             "client_id": lti.client_id, "redirect_uri": lti.redirect_uri, "login_hint": params["login_hint"],
             "state": state, "nonce": nonce}
    if params.get("lti_message_hint"):
        query["lti_message_hint"] = params["lti_message_hint"]
    parts = urlsplit(lti.auth_login_url)
    return urlunsplit(parts._replace(query=urlencode([*parse_qsl(parts.query), *query.items()])))


def validate(lti: Lti, keys: jwt.PyJWKSet, id_token: str, state: str, states: LtiStore,
             now: datetime) -> dict[str, Any]:
    """The id_token's claims once every check passed; LaunchRefused with the first that failed."""
    nonce = states.take_state(state, since=now - STATE_LIFE) if state else None
    if nonce is None:
        raise LaunchRefused("This launch's state is unknown, used or expired; open the assignment from the LMS again.")
    try:
        kid = jwt.get_unverified_header(id_token).get("kid")
    except jwt.DecodeError:
        raise LaunchRefused("The launch's id_token is not a JWT.") from None
    key = next((k for k in keys.keys if k.key_id == kid), None) if kid else (
        keys.keys[0] if len(keys.keys) == 1 else None)
    if key is None:
        raise LaunchRefused("The launch was signed with a key not in the platform's key set this course holds.")
    try:
        # exp and iat are checked below against the service's clock, so one clock rules the whole service.
        claims = jwt.decode(id_token, key.key, algorithms=["RS256"], audience=lti.client_id, issuer=lti.issuer,
                            options={"require": ["iss", "aud", "exp", "iat", "nonce", "sub"], "verify_exp": False,
                                     "verify_iat": False, "verify_nbf": False})
    except jwt.InvalidSignatureError:
        raise LaunchRefused("The launch's signature does not verify with the platform's key set.") from None
    except jwt.InvalidIssuerError:
        raise LaunchRefused("This launch came from a platform this course is not registered with.") from None
    except jwt.InvalidAudienceError:
        raise LaunchRefused("This launch is for another tool (its audience is not this course's client_id).") from None
    except jwt.MissingRequiredClaimError as err:
        raise LaunchRefused(f"The launch's id_token has no {err.claim} claim.") from None
    except jwt.InvalidTokenError as err:
        raise LaunchRefused(f"The launch's id_token is not valid ({type(err).__name__}).") from None
    aud = claims["aud"]
    if isinstance(aud, list) and len(aud) > 1 and claims.get("azp") != lti.client_id:
        raise LaunchRefused("This launch is for another tool (its azp is not this course's client_id).")
    if not isinstance(claims["exp"], int | float) or now.timestamp() > claims["exp"] + CLOCK_SKEW.total_seconds():
        raise LaunchRefused("This launch has expired; open the assignment from the LMS again.")
    if not isinstance(claims["iat"], int | float) or claims["iat"] > now.timestamp() + CLOCK_SKEW.total_seconds():
        raise LaunchRefused("This launch was issued in the future; check the platform's and this server's clocks.")
    # The nonce is the one kept with this state, and a state is taken once: a token replayed with its own
    # state finds the state gone, one replayed under a fresh login's state carries the wrong nonce.
    if not secrets.compare_digest(str(claims["nonce"]), nonce):
        raise LaunchRefused("This launch's nonce is not the one this login asked for: a replayed launch is refused.")
    if claims.get(CLAIM + "deployment_id") not in lti.deployment_ids:
        raise LaunchRefused("This launch comes from a deployment this course is not registered with.")
    if claims.get(CLAIM + "version") != "1.3.0":
        raise LaunchRefused("This launch is not LTI 1.3.0.")
    if claims.get(CLAIM + "message_type") != "LtiResourceLinkRequest":
        raise LaunchRefused("This tool takes resource link launches only (open the assignment itself).")
    return claims


def _claim(claims: dict[str, Any], dotted: str) -> str:
    """`lis.person_sourcedid` -> claims[CLAIM + 'lis']['person_sourcedid']; bare names are OIDC claims."""
    head, _, rest = dotted.partition(".")
    value: Any = claims.get(CLAIM + head, claims.get(head)) if rest else claims.get(head)
    for part in rest.split(".") if rest else []:
        value = value.get(part) if isinstance(value, dict) else None
    return str(value).strip() if isinstance(value, str | int) and str(value).strip() else ""


@dataclass(frozen=True)
class Launch:
    who: Who
    user_id: str  # the platform's `sub`: the userId its scores service takes
    lineitem: str | None  # where this student's score goes (AGS), when the platform granted the score scope


def identify(lti: Lti, claims: dict[str, Any], entries: list) -> Launch:
    """The roster student this launch is: every configured claim the launch carries must name the same
    roster row (two that disagree are refused, never guessed); an instructor's launch is the instructor."""
    roles = set(claims.get(CLAIM + "roles") or [])
    ags = claims.get(AGS_CLAIM) if isinstance(claims.get(AGS_CLAIM), dict) else {}
    lineitem = ags.get("lineitem") if SCORE_SCOPE in (ags.get("scope") or []) else None
    if roles & INSTRUCTOR_ROLES:
        return Launch(INSTRUCTOR, str(claims["sub"]), None)
    if not roles & LEARNER_ROLES:
        raise LaunchRefused("This launch is neither a learner's nor an instructor's; only those may sign in.")
    found: dict[str, list[str]] = {}  # roster key -> the claims that name it
    missed: list[tuple[str, str, str]] = []  # (claim, roster field, value) that name no row
    for m in lti.match:
        value = _claim(claims, m.claim)
        rows = [e for e in entries if value and roster_key(e) and getattr(e, m.roster).casefold() == value.casefold()]
        for e in rows:
            found.setdefault(roster_key(e), []).append(m.claim)
        if value and not rows:
            missed.append((m.claim, m.roster, value))
    if len(found) > 1:
        raise LaunchRefused("Your LMS account matches more than one student on the course roster; "
                            "ask your instructor to check the roster.")
    if not found:
        raise LaunchRefused("Your LMS account matches no student on the course roster; ask your instructor.")
    (key,) = found
    entry = next(e for e in entries if roster_key(e) == key)
    # A detail the roster row leaves empty decides nothing; one it holds differently is another person's.
    disagree = [claim for claim, field, _ in missed if getattr(entry, field)]
    if disagree:
        raise LaunchRefused("Your LMS account matches a roster student on one detail and not on another "
                            f"({', '.join(disagree)}); ask your instructor to check the roster.")
    return Launch(Who("student", key), str(claims["sub"]), lineitem if isinstance(lineitem, str) else None)
