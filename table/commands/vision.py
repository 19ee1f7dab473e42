"""Vision subcommands (`locate`, `detect`, `markers`, `calibrate-lens`): owned by the vision issue."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Placeholder: the vision issue registers its commands here."""
