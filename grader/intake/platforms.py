"""Who a file belongs to, read from the names learning platforms give their exports.

- Canvas ("Download Submissions"): `lastfirst_userid_attachmentid_original.ext`, with `_LATE` after the
  name for a late submission, and `-1`, `-2` ... before the extension when a file of that name was uploaded
  again; e.g. `smithjohn_LATE_4821_99817_attention-1.py`. Read from canvas-lms `lib/content_zipper.rb`
  (`get_filename`, `add_upload_submission`, `add_text_or_url`): the name part is the user's sortable name,
  downcased with every non-word character removed; under anonymous grading it is left out and the id is
  `anon_` + the submission's anonymous id (5 base58 characters, `lib/anonymity.rb`), so
  `anon_7Gq2k_99817_attention.py` or `LATE_anon_7Gq2k_99817_attention.py`; for a group assignment the
  name is the group's (`Assignment#representatives` renames the representative), e.g.
  `team3_4821_99817_attention.py`, which only a roster with a group column can tell from a student's.
  Online text entries are `lastfirst_userid_text.html`.
- Moodle ("Download all submissions"): `Full Name_participantid_assignsubmission_file_original.ext`, or, with
  "Download submissions in folders", a folder `Full Name_participantid_assignsubmission_file_/`; online text
  is `..._assignsubmission_onlinetext_onlinetext.html` (or `onlinetext.html` in the `_onlinetext_` folder),
  an HTML page around what the student typed or pasted (mod/assign/submission/onlinetext/locallib.php
  `get_files`). Moodle 4.x folders drop the last underscore (`…_assignsubmission_file/`). Under blind
  marking the name is `Participant`. Team submissions: Moodle 3.x prefixes each member's name with
  `Group name-`; Moodle 4.x writes one folder per team, `Team name_groupid_assignsubmission_file/`,
  which a roster with a group column turns into one row per member.
- Gradescope ("Export Submissions"): a folder per submission, `submission_<id>/`, and
  `submission_metadata.yml` naming its submitters (`:name:`, `:sid:`, `:email:`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass

import yaml

# The name part is the sortable name with everything but word characters removed (content_zipper.rb:
# `gsub(/[^[:word:]]/, '')`), so an underscore and digits may stay in it, and the student's own file name
# after the ids may hold anything: `eve_4821_99817_5000_99818_attention.py` reads as user 4821 or user
# 5000. Every reading is kept (`CANVAS_IDS` at each place it fits); a roster decides, or nobody does.
CANVAS_IDS = re.compile(r"(?=_(?P<uid>\d+)_(?P<sub>\d+)_(?P<orig>.+)$)")
# Canvas's anonymous ids are base58 (no 0, O, I, l); its names carry no underscore of their own.
CANVAS_ANON = re.compile(r"^(?P<late>LATE_)?anon_(?P<anon>[1-9A-HJ-NP-Za-km-z]+)_(?P<sub>\d+)_(?P<orig>.+)$")
CANVAS_TEXT = re.compile(r"^(?:(?P<late1>LATE_)?anon_(?P<anon>[1-9A-HJ-NP-Za-km-z]+)"
                         r"|(?P<login>[^_/]+?)(?P<late2>_LATE)?_(?P<uid>\d+))_text\.html$")
# Moodle 3.x writes folders `..._assignsubmission_file_/`, Moodle 4.x (mod/assign/classes/downloader.php)
# `..._assignsubmission_file/`; flat files are `..._assignsubmission_file_original.ext` in both. Moodle
# replaces every `_` of the full name with a space (mod/assign/locallib.php `download_submissions`:
# `str_replace('_', ' ', $groupname . fullname($student))`), so in a file name the first `_` ends the name
# and what follows the plugin is the student's own file name, which may hold anything. A folder name ends
# with the id and plugin, so it is read from the right: a name made to look like a prefix
# ("Wei Li_576317_assignsubmission_file") never claims that id.
MOODLE = re.compile(r"^(?P<name>[^_]+)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<orig>.+)$")
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<pid>\d+)_assignsubmission_(?P<plugin>[a-z]+)_?$")
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<id>\d+)$")
RESUBMITTED = re.compile(r"^(?P<stem>.+)-(?P<n>\d+)(?P<ext>\.[^.]+)$")
GRADESCOPE_METADATA = "submission_metadata.yml"
MOODLE_ONLINE_TEXT = "onlinetext.html"


@dataclass(frozen=True)
class Owner:
    key: str
    id: str
    name: str
    platform: str
    late: bool = False
    order: tuple[int, ...] = ()  # larger is later
    original: str = ""  # the student's own file name, resubmission number removed
    readings: tuple[str, ...] = ()  # a Canvas name that reads as several user ids: those ids (key unsure)


def resubmission(original: str) -> tuple[str, int]:
    m = RESUBMITTED.match(original)
    return (m["stem"] + m["ext"], int(m["n"])) if m else (original, 0)


def is_online_text(name: str) -> bool:
    """What a platform wrote for text typed into its editor (rather than a file the student uploaded)."""
    return name == MOODLE_ONLINE_TEXT or name.endswith("_" + MOODLE_ONLINE_TEXT) or bool(CANVAS_TEXT.match(name))


def canvas_login(sortable: str) -> str:
    """A sortable name ("Li, Wei") as Canvas writes it into file names (`liwei`)."""
    return re.sub(r"[^\w]", "", sortable).lower()


def canvas_readings(name: str) -> list[Owner]:
    """Each way `lastfirst[_LATE]_userid_attachmentid_file` splits, leftmost first."""
    out = []
    for m in CANVAS_IDS.finditer(name):
        login = name[:m.start()]
        late = login.endswith("_LATE")
        login = login.removesuffix("_LATE")
        if login and "/" not in login:
            original, n = resubmission(m["orig"])
            out.append(Owner(f"canvas:{m['uid']}", m["uid"], login, "canvas", late=late,
                             order=(n, int(m["sub"])), original=original))
    return out


def owner_of_file(name: str, logins: Mapping[str, Collection[str]] | None = None) -> Owner:
    """`logins` (user id -> its sortable names as Canvas writes them, from a roster) picks among the
    readings of a Canvas name that has several; without one that fits, the owner is unsure."""
    if m := MOODLE.match(name):
        return Owner(f"moodle:{m['pid']}", m["pid"], m["name"], "moodle", original=m["orig"])
    if m := CANVAS_TEXT.match(name):
        if m["anon"]:
            anon = f"anon_{m['anon']}"
            return Owner(f"canvas:{anon}", anon, anon, "canvas", late=bool(m["late1"]), original="text.html")
        return Owner(f"canvas:{m['uid']}", m["uid"], m["login"], "canvas", late=bool(m["late2"]),
                     original="text.html")
    if m := CANVAS_ANON.match(name):
        original, n = resubmission(m["orig"])
        anon = f"anon_{m['anon']}"
        return Owner(f"canvas:{anon}", anon, anon, "canvas", late=bool(m["late"]), order=(n, int(m["sub"])),
                     original=original)
    if readings := canvas_readings(name):
        fits = [o for o in readings if o.name in (logins or {}).get(o.id, ())]
        if len(readings) == 1 or len(fits) == 1:
            return fits[0] if fits else readings[0]
        first = readings[0]
        return Owner(f"canvas-unsure:{name}", "", first.name, "canvas", late=first.late, order=first.order,
                     original=name, readings=tuple(o.id for o in readings))
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    return Owner(f"file:{stem}", stem, stem, "file", original=name)


def owner_of_folder(name: str) -> Owner:
    if m := MOODLE_FOLDER.match(name):
        return Owner(f"moodle:{m['pid']}", m["pid"], m["name"], "moodle")
    return Owner(f"folder:{name}", name, name, "folder")


def gradescope_id(folder: str) -> str:
    """The submission id in Gradescope's folder name `submission_<id>` ("" for any other name)."""
    m = GRADESCOPE_FOLDER.match(folder)
    return m["id"] if m else ""


@dataclass(frozen=True)
class Submitter:
    folder: str
    name: str
    sid: str
    email: str
    created_at: str


def _scalar(value: object) -> str:
    return str(value) if isinstance(value, str | int | float) or hasattr(value, "isoformat") else ""


def gradescope_submitters(text: str) -> list[Submitter]:
    """Parse `submission_metadata.yml` (Ruby symbols as keys: `:submitters:`). ValueError when malformed."""
    try:  # libyaml's parser when installed: four times faster, and it refuses deep nesting at once
        meta = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
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
                    # A scalar or nothing: str() of an alias bomb (lists of lists by reference) never ends.
                    return _scalar(person.get(f":{k}") or person.get(k))
                out.append(Submitter(str(folder), get("name"), get("sid"), get("email"),
                                     _scalar(entry.get(":created_at") or entry.get("created_at"))))
    return out
