"""`make bench`: run every benchmark module here (files named bench_*.py, each with run()).

Benchmarks print figures and assert nothing: these machines are shared and noisy.
Pass module names to run only some: `python -m tests.benchmarks famiglia`.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import tests.benchmarks as package


def main(argv: list[str]) -> int:
    names = sorted(
        m.name for m in pkgutil.iter_modules(package.__path__) if m.name.startswith("bench_")
    )
    wanted = [n for n in names if not argv or any(a in n for a in argv)]
    for i, name in enumerate(wanted, 1):
        print(f"== [{i}/{len(wanted)}] {name}", flush=True)
        importlib.import_module(f"tests.benchmarks.{name}").run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
