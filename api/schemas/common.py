"""What the bodies share: the base of request bodies, names, seats, versions, and the header
that makes a creating request idempotent."""

from __future__ import annotations

from typing import Annotated

import msgspec

from services.games.commandinput import MAX_COMMAND_ID
from services.identity.players import MAX_NAME

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_NAME)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=63)]
Version = Annotated[int, msgspec.Meta(ge=0)]


# Its subclasses repeat frozen=True: msgspec inherits it, mypy (dataclass_transform) does not.
class In(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A request body: a field it does not name is refused."""


COMMAND_ID_HEADER = "Idempotency-Key"
MAX_IDEMPOTENCY_KEY = MAX_COMMAND_ID
