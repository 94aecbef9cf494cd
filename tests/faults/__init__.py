"""Fault injection under HTTP load against a whole ``omerta run``."""
