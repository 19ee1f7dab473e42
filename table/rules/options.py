"""Ruling options with types: what a rule system lets players switch, declared on its class.

The panel's settings form is generated from them (`to_json`), and `check` turns a wrong value into a
QueryError naming the ruling. Kinds: `bool`, `number` (with an optional range), `integer`, `choice`
(one of `choices`), `choices` (a list of `choices`); `optional` also allows null.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from table.errors import QueryError

Kind = Literal["bool", "number", "integer", "choice", "choices"]


@dataclass(frozen=True)
class Option:
    """One ruling option: its name, kind, default, and the values it allows."""

    name: str
    kind: Kind
    default: Any
    choices: tuple[str, ...] = ()
    minimum: float | None = None
    maximum: float | None = None
    optional: bool = False
    help: str = ""

    def check(self, value: Any) -> Any:
        """`value` if this option allows it, else a QueryError naming the ruling and what it expects."""
        if value is None and self.optional:
            return value
        if not self._allows(value):
            raise QueryError(f"ruling {self.name}: expected {self.expects()}, got {value!r}")
        return value

    def expects(self) -> str:
        """What the option allows, in words."""
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = f"one of {', '.join(self.choices)}"
        elif self.kind == "choices":
            text = f"a list of {', '.join(self.choices)}"
        else:
            text = "a whole number" if self.kind == "integer" else "a number"
            if self.minimum is not None:
                text += f" >= {self.minimum:g}"
            if self.maximum is not None:
                text += f" <= {self.maximum:g}"
        return text + (" (or null)" if self.optional else "")

    def _allows(self, value: Any) -> bool:
        if self.kind == "bool":
            return isinstance(value, bool)
        if self.kind == "choice":
            return isinstance(value, str) and value in self.choices
        if self.kind == "choices":
            return isinstance(value, list) and all(isinstance(v, str) and v in self.choices for v in value)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            return False
        if self.kind == "integer" and not float(value).is_integer():
            return False
        low, high = self.minimum, self.maximum
        return (low is None or value >= low) and (high is None or value <= high)

    def to_json(self) -> dict[str, Any]:
        """The option as the panel's settings form reads it."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "default": self.default,
                               "optional": self.optional}
        if self.choices:
            out["choices"] = list(self.choices)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        if self.help:
            out["help"] = self.help
        return out
