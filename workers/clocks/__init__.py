"""Clock jobs scheduled by the projection: deadlines, low-time warnings, open-game expiry."""
