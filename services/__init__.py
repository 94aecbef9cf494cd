"""The application layer: the event store on Redis Streams and the command service.

Public interface (details in each module's docstring):

* ``services.games.commands``: the ``CommandService`` class (``create_game``, ``handle``,
  ``load``, ``history``; one per process, made by ``bootstrap``); its parts, each given a
  ``services.games.repository.GameRepository`` (a game's state, its appends):
  ``services.games.creation``, ``services.games.handling`` (``Accepted``),
  ``services.games.reading`` (``Loaded``); ``services.games.commandinput``.
* ``services.errors``: the typed refusals (``code``, ``status``, ``message``).
* ``services.eventstore.store``: ``EventStore`` (the one Lua append, reads) and
``services.eventstore.records``: the
  envelope, the hash chain, the metadata and command records; ``services.eventstore.keys``: key
  names.
* ``services.eventstore.upcasting``: ``UPCASTERS``, the steps that read older event shapes.
* ``services.eventstore.audit``: ``verify(store, game_id)`` (``omerta verify``).
* ``services.platform.config``: the settings, from the environment the entry point hands it;
  ``services.platform.servers``: ``connect()``, and the embedded server
  (``services.platform.embedded``) used when ``REDIS_URL`` is unset.
"""
