"""Tests of the hand analysis (R6): a brute-force reference, agreement and property tests."""
