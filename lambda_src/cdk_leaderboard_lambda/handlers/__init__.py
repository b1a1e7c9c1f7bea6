"""Thin Lambda entry points, one module per function: each names the operations the route table maps to it."""
