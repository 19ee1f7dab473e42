"""Tests: hexgrid."""
