"""Who a player is: players, their devices, passkeys and email addresses."""
