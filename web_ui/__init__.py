"""The status panel players open on their phones: `create_app(controller)` and `serve(app, host, port)`."""

from web_ui.app import create_app
from web_ui.server import app_from_config, serve

__all__ = ["app_from_config", "create_app", "serve"]
