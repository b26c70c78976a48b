"""Tests: a package (tests/test_architecture.py)."""
