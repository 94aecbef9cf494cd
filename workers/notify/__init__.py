"""The notification jobs and their channels' deliveries."""
