"""Subcommand groups of ``omerta``: one module each, with ``register(subparsers)``."""
