"""Tests: hex skirmish."""
