"""Tests: vision."""
