"""What a diagnosis tells a student: one misconception, named in the submission's own numbers."""

from __future__ import annotations

from grader.vocabulary import Model


class Diagnosis(Model):
    id: str
    title: str
    message: str
    section: str
