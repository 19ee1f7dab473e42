"""Subcommands of `smarttable`, one module per room; each has `register(subparsers)`."""

from table.commands import club, game, live, query, vision

COMMAND_MODULES = (query, vision, live, game, club)
