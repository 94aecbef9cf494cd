"""The event store: one stream per game, its records and keys, codec, upcasting, shards, audit."""
