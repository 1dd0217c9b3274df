"""Who a file belongs to, read from the names learning platforms give their exports.

- Canvas ("Download Submissions"): `lastfirst_userid_submissionid_original.ext`, with `_LATE` after the
  name for a late submission, and `-1`, `-2` ... before the extension when a file of that name was uploaded
  again; e.g. `smithjohn_LATE_4821_99817_attention-1.py`.
- Moodle ("Download all submissions"): `Full Name_participantid_assignsubmission_file_original.ext`, or, with
  "Download submissions in folders", a folder `Full Name_participantid_assignsubmission_file_/`.
- Gradescope ("Export Submissions"): a folder per submission, `submission_<id>/`, and
  `submission_metadata.yml` naming its submitters (`:name:`, `:sid:`, `:email:`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

CANVAS = re.compile(r"^(?P<login>[^_/]+?)(?P<late>_LATE)?_(?P<uid>\d+)_(?P<sub>\d+)_(?P<orig>.+)$")
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<orig>.*)$")
RESUBMITTED = re.compile(r"^(?P<stem>.+)-(?P<n>\d+)(?P<ext>\.[^.]+)$")
GRADESCOPE_METADATA = "submission_metadata.yml"


@dataclass(frozen=True)
class Owner:
    key: str
    id: str
    name: str
    platform: str
    late: bool = False
    order: tuple[int, ...] = ()  # larger is later
    original: str = ""  # the student's own file name, resubmission number removed


def resubmission(original: str) -> tuple[str, int]:
    m = RESUBMITTED.match(original)
    return (m["stem"] + m["ext"], int(m["n"])) if m else (original, 0)


def owner_of_file(name: str) -> Owner:
    if m := MOODLE.match(name):
        return Owner(f"moodle:{m['pid']}", m["pid"], m["name"], "moodle", original=m["orig"])
    if m := CANVAS.match(name):
        original, n = resubmission(m["orig"])
        return Owner(f"canvas:{m['uid']}", m["uid"], m["login"], "canvas", late=bool(m["late"]),
                     order=(n, int(m["sub"])), original=original)
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    return Owner(f"file:{stem}", stem, stem, "file", original=name)


def owner_of_folder(name: str) -> Owner:
    if (m := MOODLE.match(name)) and not m["orig"]:
        return Owner(f"moodle:{m['pid']}", m["pid"], m["name"], "moodle")
    return Owner(f"folder:{name}", name, name, "folder")


@dataclass(frozen=True)
class Submitter:
    folder: str
    name: str
    sid: str
    email: str
    created_at: str


def gradescope_submitters(text: str) -> list[Submitter]:
    """Parse `submission_metadata.yml` (Ruby symbols as keys: `:submitters:`). ValueError when malformed."""
    try:
        meta = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ValueError(f"{GRADESCOPE_METADATA} is not valid YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise ValueError(f"{GRADESCOPE_METADATA} is not a mapping of submission folders")
    out = []
    for folder, entry in meta.items():
        if not isinstance(entry, dict):
            continue
        people = entry.get(":submitters") or entry.get("submitters") or []
        for person in people if isinstance(people, list) else []:
            if isinstance(person, dict):
                def get(k, person=person):
                    return str(person.get(f":{k}") or person.get(k) or "")
                out.append(Submitter(str(folder), get("name"), get("sid"), get("email"),
                                     str(entry.get(":created_at") or entry.get("created_at") or "")))
    return out
