"""Helpers the test folders share: data paths (module-level, since parametrize needs them at
collection) and sample reports. Fixtures live in conftest.py files; nothing here is a test."""
