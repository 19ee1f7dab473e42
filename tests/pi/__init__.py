"""Tests: pi."""
