"""Notifications: what to tell whom, and the channels (webhooks, Web Push, mail)."""
