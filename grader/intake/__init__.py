"""Intake: what students handed in, as platforms export it, turned into one graded source per student.

`collect` (collect.py) is the entry point; `notebook` converts notebooks (and scripts exported from them)
to the script that is graded, and is what a student-side tool should reuse.
"""
