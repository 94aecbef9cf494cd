"""``python -m api ...`` is the ``omerta`` command (the supervisor starts its children so)."""

from api.cli import main

raise SystemExit(main())
