"""The smart wargame table: geometry, scenes, rule systems and the live table controller."""

__version__ = "0.1.0"
