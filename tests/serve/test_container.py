"""The course server's container recipe keeps its promises, read without building it: the CPU build
of torch at the Makefile's pin from PyTorch's CPU index before the project, the sandbox's libseccomp,
a non-root user, nothing installed or fetched at run time, no secret and no solution in the image.
Each rule is shown to catch the recipe broken its way."""

from __future__ import annotations

import re
import tomllib

import pytest
from packaging.requirements import Requirement
from support.corpora import ROOT

from grader.paths import TORCH_CPU_INDEX

RECIPE = ROOT / "Containerfile"
NETWORK_TOOLS = ("pip", "apt", "apt-get", "curl", "wget", "git", "uv", "conda")


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, its arguments) in order, continuation lines joined, comments dropped."""
    out, pending = [], ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip().removesuffix("\\") + " " if line.rstrip().endswith("\\") else line
        if not line.rstrip().endswith("\\"):
            word, _, rest = pending.strip().partition(" ")
            out.append((word.upper(), rest.strip()))
            pending = ""
    return out


def torch_pin(text: str) -> str | None:
    found = re.search(r"\btorch==([0-9][0-9A-Za-z.+]*)", text)
    return found[1] if found else None


def problems(text: str) -> list[str]:
    steps = instructions(text)
    found: list[str] = []
    froms = [a for i, a in steps if i == "FROM"]
    if len(froms) != 1 or ":" not in froms[0] or froms[0].endswith(":latest"):
        found.append("one FROM, with a tag that is not latest")
    runs = [(n, a) for n, (i, a) in enumerate(steps) if i == "RUN"]
    torch = [(n, a) for n, a in runs if "torch==" in a]
    makefile_pin = torch_pin((ROOT / "Makefile").read_text())
    if not torch or f"--index-url {TORCH_CPU_INDEX}" not in torch[0][1]:
        found.append("torch from PyTorch's CPU index")
    elif torch_pin(torch[0][1]) != makefile_pin:
        found.append(f"torch pinned as the Makefile pins it ({makefile_pin})")
    project = [n for n, a in runs if re.search(r"pip install [^&]*\s\.(\s|$)", a)]
    if not project or (torch and torch[0][0] > project[0]):
        found.append("torch installed before the project")
    if not any("libseccomp2" in a for _, a in runs):
        found.append("libseccomp2 for the sandbox's syscall filter")
    users = [(n, a) for n, (i, a) in enumerate(steps) if i == "USER"]
    if not users or users[-1][1].split(":")[0] in ("root", "0"):
        found.append("a non-root USER")
    elif any(n > users[-1][0] for n, _ in runs):
        found.append("no RUN after the last USER (everything installed at build time)")
    run_time = [a for i, a in steps if i in ("CMD", "ENTRYPOINT")]
    if len(run_time) != 1 or "grader" not in run_time[0] or "serve" not in run_time[0]:
        found.append("one CMD that runs grader serve")
    for command in run_time:
        words = re.findall(r"[\w.+-]+", command)  # inside a shell string too: sh -c "pip install ..."
        if any(w in NETWORK_TOOLS for w in words) or "http" in command:
            found.append("nothing installed or fetched at run time")
    if not any(i == "ENV" and re.search(r"\bPIP_NO_INDEX=1\b", a) for i, a in steps):
        found.append("PIP_NO_INDEX=1 at run time")
    for i, a in steps:
        if i in ("ENV", "ARG") and re.search(r"SECRET\w*\s*=\s*\S", a):
            found.append("no secret in the image")
        if i in ("COPY", "ADD") and re.search(r"\b(reference|tests|secret\w*|\.git|\.venv)\b|^\. ", a):
            found.append("no solution, tests or secret copied in")
    return found


def test_the_recipe_keeps_every_rule():
    assert problems(RECIPE.read_text()) == []


def test_its_torch_pin_is_within_the_projects_range():
    spec = next(Requirement(r) for r in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
                if Requirement(r).name == "torch")
    assert spec.specifier.contains(torch_pin(RECIPE.read_text()))


@pytest.mark.parametrize(("broken", "rule"), [
    (lambda t: t.replace("--index-url https://download.pytorch.org/whl/cpu ", ""), "CPU index"),
    (lambda t: t.replace("torch==2.13.0", "torch==2.12.0"), "as the Makefile pins it"),
    (lambda t: t.replace("USER 10001:10001", "USER root"), "non-root USER"),
    (lambda t: t.replace("USER 10001:10001\n", ""), "non-root USER"),
    (lambda t: t + "RUN pip install requests\n", "no RUN after the last USER"),
    (lambda t: re.sub(r"CMD .*", 'CMD ["sh", "-c", "pip install -U attention-grader && python -m grader serve"]', t),
     "nothing installed or fetched at run time"),
    (lambda t: t.replace("PIP_NO_INDEX=1", "PIP_NO_CACHE=1"), "PIP_NO_INDEX"),
    (lambda t: t.replace("libseccomp2", "libc-bin"), "libseccomp2"),
    (lambda t: t.replace("COPY grader/ grader/", "COPY grader/ grader/\nCOPY reference/ reference/"), "no solution"),
    (lambda t: t.replace("ENV PIP_NO_INDEX=1", "ENV GRADER_SECRET=abc PIP_NO_INDEX=1"), "no secret"),
    (lambda t: t.replace("FROM python:3.11-slim-bookworm", "FROM python:latest"), "not latest"),
])
def test_each_rule_catches_the_recipe_broken_its_way(broken, rule):
    text = RECIPE.read_text()
    assert broken(text) != text, "the breakage must change the recipe"
    assert any(rule in p for p in problems(broken(text))), problems(broken(text))
