"""Checks: one module per family; `evaluators.EVALUATORS` maps each registered id to its function."""
