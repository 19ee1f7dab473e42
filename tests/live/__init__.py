"""Tests: live."""
