"""The application layer: the event store on Redis Streams and the command service.

Public interface (details in each module's docstring):

* ``services.commands``: ``create_game``, ``handle``, ``load``, ``history`` (module functions on
  the process-wide ``service()``), the ``CommandService`` class and the ``after_append`` hook
  list; its parts: ``services.creation``, ``services.handling`` (``Accepted``),
  ``services.reading`` (``Loaded``), ``services.snapshots``, ``services.commandinput``.
* ``services.errors``: the typed refusals (``code``, ``status``, ``message``).
* ``services.store``: ``EventStore`` (the one Lua append, reads) and ``services.records``: the
  envelope, the hash chain, the metadata and command records; ``services.keys``: key names.
* ``services.upcasting``: ``upcaster(game, type, schema)`` to read older event shapes.
* ``services.audit``: ``verify(store, game_id)`` (``omerta verify``).
* ``services.config``: ``connect()`` and the environment; ``services.embedded``: the embedded
  server used when ``REDIS_URL`` is unset.
"""
