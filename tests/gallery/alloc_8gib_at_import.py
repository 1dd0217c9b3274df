"""Allocates 8 GiB of plain Python memory at import. Expected: load_error with MemoryError."""
blob = bytearray(8 << 30)
