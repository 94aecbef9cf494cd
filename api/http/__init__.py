"""What every request goes through: problem+json refusals, JSON bodies and query parameters,
rate limits, the CSRF and header rules, and the API's human-readable page."""
