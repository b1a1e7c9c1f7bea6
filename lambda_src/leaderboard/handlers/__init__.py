"""Thin Lambda entry points: parse the request, call the service, respond. One module per function."""
