"""The report formats a command writes to files, declared once: the command line's --html and
--markdown write through this registry, and the injection and audience tests iterate over it, so a
format added here is written, and tested, without another list to keep.

Each renderer module is imported only when its format is used (the HTML pictures need matplotlib).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from grader.report.models import Report
from grader.vocabulary import Audience


@dataclass(frozen=True)
class Format:
    name: str  # the command line's option (--html) and the renderer's name (render_html, write_html)
    suffix: str  # a class run's file per submission: <stem><suffix>
    module: str

    def _renderer(self, verb: str):
        return getattr(importlib.import_module(self.module), f"{verb}_{self.name}")

    def render(self, report: Report, *, audience: Audience, published: bool = False) -> str:
        return self._renderer("render")(report, audience=audience, published=published)

    def write(self, report: Report, path: Path, *, audience: Audience, published: bool = False) -> None:
        self._renderer("write")(report, path, audience=audience, published=published)


REPORT_FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("html", ".html", "grader.report.html"),
    Format("markdown", ".md", "grader.report.markdown"),
)}


def write_reports(reports: list[tuple[Report, str]], targets: dict[str, str | None], *, single: bool,
                  audience: Audience, published: bool = False) -> list[Path]:
    """Each report in each format given a target (`targets`: format name -> path or folder); `reports`
    holds (report, file stem) pairs, and with `single` a target is the file itself. The paths written."""
    written = []
    for fmt in REPORT_FORMATS.values():
        target = targets.get(fmt.name)
        if not target:
            continue
        for report, stem in reports:
            path = Path(target) if single else Path(target) / (stem + fmt.suffix)
            fmt.write(report, path, audience=audience, published=published)
            written.append(path)
    return written
