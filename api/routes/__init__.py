"""The API's blueprints, one module per group of resources."""
