"""Backups: ``omerta export`` and ``omerta import``, a logical and verifiable copy of every key
that cannot be rebuilt (``families`` says which)."""
