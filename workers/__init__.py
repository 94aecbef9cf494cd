"""RQ jobs: projections into read models, AI moves, and the catch-up that repairs lost jobs."""
