"""The outside of Omerta: the HTTP API (Flask) and the ``omerta`` command line (``api.cli``)."""
