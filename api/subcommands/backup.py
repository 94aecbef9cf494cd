"""``omerta export FILE`` (a verifiable logical backup, while the service runs), ``omerta export
--check FILE`` and ``omerta import FILE`` (into an empty store, then the read models rebuilt
and every game verified): ``services.backup``; operators' guide in docs/operators.md.

Exit statuses: 0 done; 1 a damaged or foreign file (nothing written), a game whose chain fails
(export: reported, the file still written; import: after the rebuild); 2 the import's store is
not empty (nothing written)."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from bootstrap import Container

REFUSED = 2
STDOUT = "-"
BACKUP_MODE = 0o600  # its owner's only


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = subparsers.add_parser(
        "export", help="write a backup of everything that cannot be rebuilt"
    )
    export.add_argument("file", help=f"the backup file to write ({STDOUT}: standard output)")
    export.add_argument(
        "--check", action="store_true", help="check FILE instead: complete, intact, readable"
    )
    export.add_argument("--quiet", action="store_true", help="no progress lines")
    export.set_defaults(run=run_export)

    restore = subparsers.add_parser(
        "import", help="restore a backup into an empty store, rebuild the read models"
    )
    restore.add_argument("file", type=Path)
    restore.add_argument(
        "--dry-run", action="store_true", help="check the file and the store, write nothing"
    )
    restore.add_argument("--quiet", action="store_true", help="no progress lines")
    restore.set_defaults(run=run_import)


def progress_line(doing: str, unit: str, quiet: bool) -> Callable[[int, int], None] | None:
    """A progress line on stderr, rewritten in place (a new line at the end)."""

    def show(done: int, total: int) -> None:
        end = "\n" if done == total else ""
        print(f"\r{doing}: {done}/{total} {unit}", end=end, file=sys.stderr)

    return None if quiet else show


def source_of(url: str | None) -> str:
    """The store's address, without credentials (the backup's header names it)."""
    if not url:
        return "embedded"
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port or 6379}{parts.path}"


def run_export(args: argparse.Namespace) -> int:
    from services.backup.backupfile import BadBackup

    if args.check:
        try:
            return _check(Path(args.file))
        except BadBackup as exc:
            print(f"omerta export --check: {args.file}: {exc}", file=sys.stderr)
            return 1
    from bootstrap import bootstrap
    from services.backup.export import export

    container = bootstrap()
    settings = container.settings
    source = source_of(settings.cluster_url or settings.redis_url)
    progress = progress_line("exporting", "key groups", args.quiet)
    with _output(args.file) as out:
        done = export(container.store, out, source, progress, container.events.archived)
    for problem in done.problems:
        print(f"FAIL {problem}")
    trailer = done.trailer
    print(
        f"{trailer.games} games, {trailer.keys} keys exported to {args.file}"
        + (f"; {len(done.problems)} chain problems" if done.problems else "")
    )
    return 1 if done.problems else 0


@contextlib.contextmanager
def _output(name: str) -> Iterator[BinaryIO]:
    """Standard output, or ``name`` written beside as ``name.partial`` and renamed once complete
    (a failed export leaves no file that looks like a backup). The file is created with mode
    0600, whatever the umask: a backup holds every player's sign-in secrets, and a chmod after
    the writing would leave them readable meanwhile."""
    if name == STDOUT:
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    partial = Path(f"{name}.partial")
    partial.unlink(missing_ok=True)  # one left by a killed export keeps its own mode
    try:
        descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, BACKUP_MODE)
        with os.fdopen(descriptor, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        partial.replace(name)
    finally:
        partial.unlink(missing_ok=True)


def _check(path: Path) -> int:
    from services.backup.restore import check

    header, trailer = check(path)
    print(
        f"{path}: intact, format {header.format} {header.version}, from {header.source}: "
        f"{trailer.games} games, {trailer.keys} keys"
    )
    return 0


def run_import(args: argparse.Namespace) -> int:
    from bootstrap import bootstrap
    from services.backup.backupfile import BadBackup
    from services.backup.restore import NotEmpty, occupied, restore

    container = bootstrap()
    try:
        if args.dry_run:
            _check(args.file)
            found = occupied(container.store)
            if found:
                print("omerta import: the store is not empty: an import would refuse it")
                return REFUSED
            print("the store is empty: an import would proceed")
            return 0
        trailer = restore(
            container.store, args.file, progress_line("importing", "keys", args.quiet)
        )
    except BadBackup as exc:
        print(f"omerta import: {args.file}: {exc}; nothing written", file=sys.stderr)
        return 1
    except NotEmpty as exc:
        print(f"omerta import: {exc} Nothing written: import into an empty store", file=sys.stderr)
        return REFUSED
    print(f"{trailer.keys} keys of {trailer.games} games imported")
    return _rebuild_and_verify(container, args.quiet)


def _rebuild_and_verify(container: Container, quiet: bool) -> int:
    from services.eventstore import audit
    from workers.projection.rebuild import rebuild

    store = container.events
    built = rebuild(store, progress_line("rebuilding read models", "games", quiet))
    failed = 0
    for game_id in sorted(store.game_ids()):
        for problem in audit.verify(store, game_id):
            print(f"FAIL {game_id}: {problem}")
            failed += 1
    print(f"{built.games} games, {built.keys} read-model keys rebuilt; {failed} problems")
    return 1 if failed else 0
