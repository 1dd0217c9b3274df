"""A single-node Slurm cluster for one test: munged, slurmctld and slurmd started as root from a
generated slurm.conf in a temporary folder (their own ports, sockets and state: nothing under /etc or
/run is used), stopped when the test ends. `start` says why when it cannot run here."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

BINARIES = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo")


class Unavailable(Exception):
    """Slurm cannot run here; the message says why (the test skips with it)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _conf(work: Path, host: str) -> str:
    ctld, slurmd = _free_port(), _free_port()
    state = work / "state"
    return f"""\
ClusterName=grader-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld}
SlurmdPort={slurmd}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={work / "munge.socket"}
CredType=cred/munge
StateSaveLocation={state / "ctld"}
SlurmdSpoolDir={state / "d"}
SlurmctldPidFile={work / "slurmctld.pid"}
SlurmdPidFile={work / "slurmd.pid"}
SlurmctldLogFile={work / "slurmctld.log"}
SlurmdLogFile={work / "slurmd.log"}
ProctrackType=proctrack/pgid
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
SlurmdParameters=config_overrides
InactiveLimit=0
MinJobAge=300
KillWait=5
# 16 CPUs whatever the machine has (config_overrides): the documented script asks 4 per task as written.
NodeName=gradernode NodeAddr=127.0.0.1 NodeHostname={host} CPUs=16 State=UNKNOWN
PartitionName=grading Nodes=gradernode Default=YES MaxTime=INFINITE State=UP
"""


@contextmanager
def cluster(work: Path):
    """Yields the environment (SLURM_CONF set) in which sbatch and squeue talk to the test's cluster."""
    missing = [b for b in BINARIES if shutil.which(b) is None and not Path("/usr/sbin", b).exists()]
    if missing:
        raise Unavailable(f"Slurm is not installed here (no {', '.join(missing)}; Debian: apt-get install "
                          "slurm-wlm munge)")
    if os.geteuid() != 0:
        raise Unavailable("starting munged, slurmctld and slurmd needs root")
    work.mkdir(parents=True, exist_ok=True)
    work.chmod(0o700)
    (work / "state" / "ctld").mkdir(parents=True)
    (work / "state" / "d").mkdir()
    key = work / "munge.key"
    key.write_bytes(os.urandom(1024))
    key.chmod(0o400)
    host = socket.gethostname().split(".")[0]
    conf = work / "slurm.conf"
    conf.write_text(_conf(work, host))
    (work / "cgroup.conf").write_text("CgroupPlugin=autodetect\nIgnoreSystemd=yes\n")
    env = {**os.environ, "SLURM_CONF": str(conf), "PATH": f"{os.environ.get('PATH', '')}:/usr/sbin"}
    procs: list[subprocess.Popen] = []
    try:
        procs.append(_daemon(["munged", "-F", "--force", f"--key-file={key}", f"--socket={work / 'munge.socket'}",
                              f"--pid-file={work / 'munged.pid'}", f"--log-file={work / 'munged.log'}",
                              f"--seed-file={work / 'munged.seed'}"], env, work / "munged.out"))
        _until(lambda: (work / "munge.socket").exists(), procs, work, "munged")
        procs.append(_daemon(["slurmctld", "-D", "-i", "-f", str(conf)], env, work / "slurmctld.out"))
        _until(lambda: _quiet(["scontrol", "ping"], env, "UP"), procs, work, "slurmctld")
        procs.append(_daemon(["slurmd", "-D", "-N", "gradernode", "-f", str(conf)], env, work / "slurmd.out"))
        _until(lambda: _quiet(["sinfo", "-h", "-N", "-o", "%t"], env, "idle"), procs, work, "slurmd")
        yield env
    finally:
        for p in reversed(procs):
            p.terminate()
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def _daemon(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        return subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)


def _quiet(cmd: list[str], env: dict[str, str], expect: str) -> bool:
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
    return done.returncode == 0 and expect in done.stdout


def _until(ready, procs: list[subprocess.Popen], work: Path, name: str, timeout_s: float = 90) -> None:
    end = time.monotonic() + timeout_s
    while not ready():
        dead = [p for p in procs if p.poll() is not None]
        if dead or time.monotonic() > end:
            logs = "; ".join(f"{f.name}: {f.read_text(errors='replace')[-400:]}" for f in sorted(work.glob("*.out"))
                             + sorted(work.glob("*.log")))
            raise Unavailable(f"{name} did not start here ({'exited' if dead else 'timed out'}): {logs}")
        time.sleep(0.5)


def wait_for(env: dict[str, str], job: str, timeout_s: float = 900) -> str:
    """Until `job` (and every task of an array) has left the queue; its final state as scontrol shows it."""
    end = time.monotonic() + timeout_s
    while True:
        done = subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], env=env, capture_output=True, text=True)
        if done.returncode == 0 and not done.stdout.strip():
            break
        if time.monotonic() > end:
            raise TimeoutError(f"Slurm job {job} still queued after {timeout_s} s")
        time.sleep(1)
    show = subprocess.run(["scontrol", "-o", "show", "job", job], env=env, capture_output=True, text=True)
    return " ".join(w for w in show.stdout.split() if w.startswith(("JobState=", "ExitCode=")))
