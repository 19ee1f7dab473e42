"""Tests: club."""
