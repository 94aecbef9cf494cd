"""The projection: events into read models, its jobs, the catch-up, leases and rebuilds."""
