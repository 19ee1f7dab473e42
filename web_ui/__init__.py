"""The status panel players open on their phones: `create_app(controller)` and `serve(app, host, port)`.

They are imported when first asked for, so the panel's server plumbing (`web_ui.channels`,
`web_ui.server`) can be used without the panel: the club's hub serves its dashboard with it."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from web_ui.app import create_app
    from web_ui.server import app_from_config, serve

__all__ = ["app_from_config", "create_app", "serve"]
_HOMES = {"create_app": "web_ui.app", "app_from_config": "web_ui.server", "serve": "web_ui.server"}


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module 'web_ui' has no attribute {name!r}")
    return getattr(importlib.import_module(_HOMES[name]), name)
