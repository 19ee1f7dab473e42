"""`cached_property` without a lock: a value worked out once per object, on first use.

Python 3.11's `functools.cached_property` (the Pi's Python, and CI's) takes one lock per property shared
by every object of the class, held while the value is worked out: a phone's bookmark working out one
rule system's cover index made every other thread's line of sight, the camera loop's included, wait for
it (tests/live/test_cached.py). Python 3.12 dropped that lock; this is 3.12's behaviour: two threads
asking at once may both work the value out, and the last one's is kept (the values are the same).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class cached_property(Generic[T]):  # noqa: N801 - named as the standard library's, which it replaces
    """A property worked out on first use and kept in the object's __dict__ (no lock, see above)."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.name = func.__name__
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[T]: ...

    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...

    def __get__(self, instance: object | None, owner: type | None = None) -> T | cached_property[T]:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.name] = value
        return value
