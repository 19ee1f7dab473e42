"""Tests: synaptik."""
