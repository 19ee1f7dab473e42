"""The table's exceptions: one root, each also a builtin so callers may catch either."""


class TableError(Exception):
    """Root of every error the table raises on purpose."""


class SceneError(TableError, ValueError):
    """A scene file or scene document is malformed; the message names the JSON path."""


class ConfigError(TableError, ValueError):
    """A config file is malformed; the message names the file and the key."""


class QueryError(TableError, ValueError):
    """A question the rule system cannot answer as asked (unknown id, bad argument)."""


class ParamError(QueryError):
    """A command's parameter out of its limits, whichever way the command came (the panel, a button, the
    club's broker): `field` names it (the panel's 400 names the same), `problem` says what is wrong."""

    def __init__(self, command: str, field: str, problem: str):
        super().__init__(f"{command}: {field}: {problem}")
        self.field, self.problem = field, problem


class CalibrationError(TableError, ValueError):
    """The board cannot be located in a frame."""


class HardwareError(TableError, RuntimeError):
    """A camera, GPIO pin or LED strip failed or is missing."""


class SetupError(TableError, RuntimeError):
    """The installation is broken (a library that is present but cannot load): retrying cannot fix
    it, so the table stops with one line saying what to reinstall."""


class StorageError(TableError, OSError):
    """The game log cannot store a change right now (a full disk, a lock held by another process)."""
