"""What every process stands on: configuration, the embedded server, checks, secrets."""
