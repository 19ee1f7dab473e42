"""Live-table subcommands (`run`, `doctor`, `log`): owned by the live-table issue."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    """Placeholder: the live-table issue registers its commands here."""
