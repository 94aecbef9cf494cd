"""The import contracts (pyproject.toml [tool.importlinter]) hold, and each can fail: a copy of
the tree given one forbidden import breaks the contract that forbids it. A contract that could
not fail would keep no shape."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
PACKAGES = ("domain", "services", "workers", "api")

# (module to append the import to, the import, the contract it breaks); games.creation imports
# games.clocks, so the probe in clocks closes a cycle.
PROBES = [
    ("domain/rng.py", "import api", "domain imports nothing of ours"),
    (
        "services/errors.py",
        "import workers.ai",
        "services never imports api, workers or bootstrap",
    ),
    ("workers/mailer.py", "import api.app", "workers never imports api or bootstrap"),
    ("api/http/jsonio.py", "import bootstrap", "api imports bootstrap only in its entry points"),
    (
        "services/eventstore/keys.py",
        "import services.readside.seen",
        "services' contexts import downward only",
    ),
    (
        "services/games/clocks.py",
        "import services.games.creation",
        "services' contexts have no cycles inside",
    ),
    (
        "workers/notify/push.py",
        "import workers.clocks.deadlines",
        "workers' packages and modules have no cycles",
    ),
]


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    # --no-cache: the copy's results must not come from (or go into) a cache; wide columns: a
    # contract's name and its verdict stay on one line.
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"],
        cwd=root,
        env={**os.environ, "COLUMNS": "500"},
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the packages and pyproject.toml, to add imports to."""
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    return tmp_path


def test_the_contracts_hold() -> None:
    run = lint_imports(ROOT)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize(("module", "line", "contract"), PROBES, ids=[p[2] for p in PROBES])
def test_a_forbidden_import_breaks_its_contract(
    tree: Path, module: str, line: str, contract: str
) -> None:
    with (tree / module).open("a") as source:
        source.write(f"\n{line}  # the probe\n")
    run = lint_imports(tree)
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"\n{contract} BROKEN" in run.stdout, run.stdout
