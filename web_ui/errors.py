"""JSON errors for the API: every bad request is a 4xx `{"error", "field"}`, never an HTML page or a 500."""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, jsonify
from werkzeug.exceptions import HTTPException

from table.errors import ConfigError, QueryError, SceneError, StorageError, TableError


class ApiError(Exception):
    """A request the panel refuses: `field` names the part of the request that is wrong;
    `retry_after_s` (a 429 or 503) goes out as the Retry-After header: when to try again."""

    def __init__(self, status: int, field: str, message: str, *, retry_after_s: int | None = None):
        super().__init__(message)
        self.status = status
        self.field = field
        self.message = message
        self.retry_after_s = retry_after_s


def error_body(field: str, message: str) -> dict[str, Any]:
    return {"error": message, "field": field}


def _table_status(exc: TableError) -> int:
    if isinstance(exc, (QueryError, SceneError, ConfigError)):
        return 400
    if isinstance(exc, StorageError):
        return 503  # the game log cannot store it right now: try again
    return 409  # e.g. HardwareError, CalibrationError: the table cannot do it right now


def _field_of(message: str, default: str) -> str:
    """The JSON path a SceneError names (`terrain[2].polygon: ...`), else `default`."""
    head = message.split(": ", 1)[0]
    if head and " " not in head and len(head) < 80 and head != message:
        return head
    return default


def install(app: Flask) -> None:
    """Register the error handlers on `app`."""

    @app.errorhandler(ApiError)
    def api_error(exc: ApiError) -> tuple[Response, int]:
        response = jsonify(error_body(exc.field, exc.message))
        if exc.retry_after_s is not None:
            response.headers["Retry-After"] = str(exc.retry_after_s)
        return response, exc.status

    @app.errorhandler(TableError)
    def table_error(exc: TableError) -> tuple[Response, int]:
        return jsonify(error_body(_field_of(str(exc), "body"), str(exc))), _table_status(exc)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        field = "path" if exc.code in (404, 405) else "body"
        if exc.code == 405:
            field = "method"
        response = jsonify(error_body(field, exc.description or exc.name))
        response.status_code = exc.code or 500
        if exc.code == 405 and hasattr(exc, "valid_methods") and exc.valid_methods:
            response.headers["Allow"] = ", ".join(exc.valid_methods)
        return response
