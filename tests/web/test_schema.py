"""Schemathesis against /api/openapi.json: generated requests (valid and invalid) to every endpoint,
with and without the PIN; responses must match the document and never be a server error."""

from __future__ import annotations

import tempfile
from pathlib import Path

import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.web.server import PIN, make_app
from tests.web.tables import demo_controller

# units, army lists and scenarios are checked by the rule system, and ids must be new or known
CROSS_CHECKED = {"/api/query/{question}", "/api/terrain", "/api/settings", "/api/units", "/api/units/{unit_id}",
                 "/api/army", "/api/armies/{name}", "/api/scenarios/{name}", "/api/games"}
STREAMS = r"^/api/(events|camera\.mjpeg)$"     # endless responses: tested in test_sse.py / test_api.py


GAMES = r"^/api/games"     # they end and start games: on a table of their own, so the rest meets a game in play


def _schema(name: str) -> schemathesis.BaseSchema:
    folder = Path(tempfile.mkdtemp(prefix=f"smarttable-{name}-"))
    return schemathesis.openapi.from_wsgi("/api/openapi.json", make_app(demo_controller(folder), folder,
                                                                        pin_attempts=10**6))


schema = _schema("schema").exclude(path_regex=STREAMS).exclude(path_regex=GAMES)
game_table = _schema("games")
games = game_table.include(path_regex=GAMES)


@schema.parametrize()
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
def test_api_matches_its_document(case):
    # Where validity depends on more than the document can say (a question's arguments are ids of
    # this scene, a weapon or a hex; terrain ids must be unique; rulings options depend on the rule
    # system), a schema-valid request is rightly a 400 naming the field: only there is 400 accepted.
    excluded = [positive_data_acceptance] if case.path in CROSS_CHECKED else []
    case.call_and_validate(headers={"X-Table-PIN": PIN}, excluded_checks=excluded)


@games.parametrize()
@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
def test_game_routes_match_their_document(case):
    excluded = [positive_data_acceptance] if case.path in CROSS_CHECKED else []
    case.call_and_validate(headers={"X-Table-PIN": PIN}, excluded_checks=excluded)


@schema.include(method=["POST", "PUT", "DELETE"]).parametrize()
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
def test_changes_without_the_pin_are_refused(case):
    refused_without_pin(case)


@game_table.include(path_regex=GAMES, method=["POST"]).parametrize()
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
def test_game_changes_without_the_pin_are_refused(case):
    refused_without_pin(case)


def refused_without_pin(case) -> None:
    case.headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "x-table-pin"}
    response = case.call()
    if case.method.upper() != case.operation.method.upper():   # schemathesis also tries other methods
        assert response.status_code == 405 or case.method.upper() in ("OPTIONS", "HEAD")
        return
    assert response.status_code == 401 and response.json()["field"] == "X-Table-PIN"
