"""Tests: syniad."""
