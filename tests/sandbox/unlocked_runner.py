"""The child's runner without the native-code lock: for tests of the layers below it (the syscall filter,
namespaces, what a child leaves behind), whose probes make raw system calls through ctypes, as native
code that got past the lock would. Never used outside these tests."""

from grader.sandbox import runner


def serve(source_path: str, inbox: int, outbox: int) -> None:
    runner.serve(source_path, inbox, outbox, native_lock=False)
