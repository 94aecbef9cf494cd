"""Two releases side by side: the previous release's tree (``PREVIOUS``, taken from git into a
directory) and this one's, each run as ``omerta`` processes (web, worker) with the same Python
environment on one store. A process runs the tree it is started in: its working directory and
``PYTHONPATH`` put that tree's packages first, ahead of this checkout's editable install."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from api.serving.supervisor import own_group_and_lifeline
from services.platform.embedded import free_port
from tests.api.omerta_run import call, listening

ROOT = Path(__file__).resolve().parents[2]
# The release before the packages moved (workers' job paths changed: workers.queues.RENAMED).
PREVIOUS = "0691be2"
STORE_VARIABLES = ("REDIS_URL", "REDIS_CLUSTER_URL", "RQ_REDIS_URL", "OMERTA_VAR", "PYTHONPATH")


def previous_tree(into: Path) -> Path:
    """The previous release's files in ``into``; fails (never skips) without git's history of
    it: the upgrade is then untested."""
    found = subprocess.run(
        ["git", "-C", str(ROOT), "cat-file", "-e", f"{PREVIOUS}^{{commit}}"], capture_output=True
    )
    assert found.returncode == 0, (
        f"commit {PREVIOUS} (the previous release) is not in {ROOT}'s git history: the rolling "
        f"upgrade cannot be tested; run the suite in a full clone (git fetch --unshallow)"
    )
    into.mkdir(parents=True)
    archive = subprocess.Popen(
        ["git", "-C", str(ROOT), "archive", PREVIOUS], stdout=subprocess.PIPE
    )
    subprocess.run(["tar", "-x", "-C", str(into)], stdin=archive.stdout, check=True)
    assert archive.wait() == 0
    return into


def tree_env(tree: Path, store_url: str, var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in STORE_VARIABLES}
    return {**env, "REDIS_URL": store_url, "OMERTA_VAR": str(var), "PYTHONPATH": str(tree)}


def imported_from(tree: Path, env: dict[str, str]) -> Path:
    """Where the ``api`` package comes from for a process started in ``tree``."""
    script = "import api, pathlib; print(pathlib.Path(api.__file__).parent.parent)"
    found = subprocess.run(
        [sys.executable, "-c", script], cwd=tree, env=env, capture_output=True, text=True
    )
    return Path(found.stdout.strip())


class Omerta:
    """One ``omerta`` subcommand of ``tree``, in a process group of its own that dies with the
    test, logging to ``log``. ``stop()`` sends SIGTERM to the process alone, as systemd does
    (``KillMode=mixed``): gunicorn's master and RQ's worker stop their children themselves."""

    def __init__(self, tree: Path, env: dict[str, str], log: Path, *args: str) -> None:
        self.tree, self.args, self.log = tree, args, log
        with log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "api", *args],
                cwd=tree,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                preexec_fn=own_group_and_lifeline(),
            )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(
                f"{' '.join(self.args)} ({self.tree}) still runs {timeout} s after SIGTERM:\n"
                + self.log.read_text()[-6000:]
            ) from None

    def kill(self) -> None:
        """What is left of its group (after a failed test)."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()


class Web(Omerta):
    """``omerta serve`` of ``tree`` (one gevent worker) on a free port, ready once ``/readyz``
    answers."""

    def __init__(self, tree: Path, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        bind = ("--bind", f"127.0.0.1:{self.port}", "--workers", "1")
        super().__init__(tree, env, log, "serve", *bind)
        self.base = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 90  # generous: a loaded machine starts Python slowly
        while not self._ready():
            assert self.proc.poll() is None, f"omerta serve exited:\n{log.read_text()[-6000:]}"
            assert time.monotonic() < deadline, "omerta serve never got ready"
            time.sleep(0.1)

    def _ready(self) -> bool:
        try:
            return call(self.base, "GET", "/readyz")[0] == 200
        except (OSError, ValueError):
            return False

    def accepting(self) -> bool:
        return listening(self.port)
