"""The live streams (server-sent events): a game's events and a player's presence and inbox."""
