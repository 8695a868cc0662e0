"""Algorithms, each written once against the backend protocol."""
