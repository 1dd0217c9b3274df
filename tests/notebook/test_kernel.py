"""`check()` in a real Jupyter kernel tells the truth after interrupts and restarts.

Jupyter interrupts a kernel by signalling its whole process group, so a sandbox server started
from the kernel must survive that (or be replaced before the next check), and a check that was
itself interrupted must leave nothing behind that the next one could read. No timing is assumed:
an interrupt may land anywhere, and every next `check()` of a correct solution must pass.
"""

from __future__ import annotations

import os
import queue
import sys
from pathlib import Path

import pytest

jupyter_client = pytest.importorskip("jupyter_client", reason="jupyter_client is a dev extra")
pytest.importorskip("ipykernel", reason="ipykernel is a dev extra")

ROOT = Path(__file__).resolve().parents[2]
CORRECT = (ROOT / "tests" / "variants" / "einsum_triu.py").read_text()
TIMEOUT = 240  # generous: only a hang reaches it


class Kernel:
    def __init__(self, tmp: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "GRADER_DATA_DIR": str(tmp / "data")}
        self.km = jupyter_client.KernelManager(kernel_name="python3")
        self.km.kernel_cmd = None
        try:
            self.km.start_kernel(env=env, cwd=str(tmp), extra_arguments=[])
        except Exception as exc:  # noqa: BLE001 - any failure to start is a reason to skip
            pytest.skip(f"the Jupyter kernel cannot start here: {exc}")
        self.kc = self.km.client()
        self.kc.start_channels()
        try:
            self.kc.wait_for_ready(timeout=TIMEOUT)
        except RuntimeError as exc:
            self.close()
            pytest.skip(f"the Jupyter kernel did not become ready: {exc}")

    def run(self, code: str, *, interrupt_when: str | None = None) -> tuple[str, str]:
        """Run a cell; (its status, what it printed). With `interrupt_when`, interrupt the
        kernel as soon as the cell has printed that text."""
        msg_id = self.kc.execute(code)
        out, status, interrupted = [], None, False
        while True:
            try:
                msg = self.kc.get_iopub_msg(timeout=TIMEOUT)
            except queue.Empty:
                raise AssertionError(f"no answer from the kernel within {TIMEOUT} s; printed: {''.join(out)}") from None
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "stream":
                out.append(content["text"])
                if interrupt_when and not interrupted and interrupt_when in "".join(out):
                    self.km.interrupt_kernel()
                    interrupted = True
            elif kind == "error":
                out.append(f"{content['ename']}: {content['evalue']}\n")
                status = "error"
            elif kind == "status" and content["execution_state"] == "idle":
                break
        return status or "ok", "".join(out)

    def check_passes(self) -> None:
        status, out = self.run("r = check(SingleHead); print(repr(r)); print('PASSED' if r.passed else 'FAILED')")
        assert status == "ok" and "PASSED" in out, out

    def close(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


@pytest.fixture
def kernel(tmp_path):
    k = Kernel(tmp_path)
    yield k
    k.close()


def test_check_after_interrupts_and_a_restart(kernel):
    assert kernel.run(CORRECT + "\nfrom grader import check\n")[0] == "ok"
    kernel.check_passes()

    # An unrelated cell interrupted: the signal reaches the kernel's whole process group.
    status, out = kernel.run("import time\nprint('sleeping', flush=True)\ntime.sleep(600)",
                             interrupt_when="sleeping")
    assert status == "error" and "KeyboardInterrupt" in out, out
    kernel.check_passes()

    # A check interrupted while it runs, wherever the interrupt lands.
    status, out = kernel.run(
        "for i in range(50):\n    print('round', i, flush=True)\n    check(SingleHead)\n",
        interrupt_when="round 1")
    assert status == "error" and "KeyboardInterrupt" in out, out
    kernel.check_passes()
    kernel.check_passes()

    kernel.km.restart_kernel(now=True)
    kernel.kc.wait_for_ready(timeout=TIMEOUT)
    assert kernel.run(CORRECT + "\nfrom grader import check\n")[0] == "ok"
    kernel.check_passes()


def test_no_kernel_state_of_ours_in_the_student_session(kernel):
    """The kernel keeps its threads and matplotlib backend across a check (see test_side_effects)."""
    code = ("import torch, matplotlib\ntorch.set_num_threads(2)\nbefore = (torch.get_num_threads(), "
            "matplotlib.get_backend())\n" + CORRECT + "\nfrom grader import check\nr = check(SingleHead)\n"
            "r._repr_html_()\nprint(before == (torch.get_num_threads(), matplotlib.get_backend()), r.passed)\n")
    status, out = kernel.run(code)
    assert status == "ok" and out.strip().endswith("True True"), out
    assert sys.executable  # the kernel is this interpreter's (ipykernel's native spec)
