"""Checks: one module per family, each check declared once with `@check` next to its function.

`registry.CHECKS` collects the declarations; `CheckSpec.run` evaluates one.
"""
