"""The bookmarks API on the real controller: taking one needs the PIN and names what is wrong; the list and
the evidence say what was measured and where the bookmark sits in the game log; the export is one HTML page
whose own policy allows no script and nothing from outside."""

from __future__ import annotations

import re

from table.live.bookmark_page import POLICY


def test_take_list_read_and_export(client, auth, table):
    assert client.post("/api/bookmarks", json={"a": "rifles-1", "b": "sniper-1"}).status_code == 401
    reply = client.post("/api/bookmarks", json={"a": "rifles-1", "b": "sniper-1"}, headers=auth)
    assert reply.status_code == 200
    taken = reply.get_json()["result"]["bookmark"]
    distance = table.ruleset().ask("distance", ["rifles-1", "sniper-1"])["distance"]
    assert taken["text"] == f'{distance:.2f}"' and taken["between"] == ["rifles-1", "sniper-1"]
    entries = client.get("/api/log").get_json()["entries"]
    assert [(e["kind"], e["seq"]) for e in entries if e["kind"] == "bookmark"] == [("bookmark", taken["seq"])]
    assert client.get("/api/bookmarks").get_json()["bookmarks"] == [taken]
    evidence = client.get(f"/api/bookmarks/{taken['id']}").get_json()
    assert evidence["log"] == {"game": table.game, "seq": taken["seq"]}
    assert evidence["measurement"]["answers"]["distance"]["distance"] == distance
    export = client.get(f"/api/bookmarks/{taken['id']}/export")
    assert export.status_code == 200 and export.mimetype == "text/html"
    assert export.headers["Content-Security-Policy"] == POLICY
    html = export.get_data(as_text=True)
    assert taken["text"].replace('"', "&quot;") in html and f"event {taken['seq']}" in html
    assert not re.search(r"<script|https?://|src=\"/", html)        # nothing to run, nothing to fetch
    download = client.get(f"/api/bookmarks/{taken['id']}/export?download=1")
    assert download.headers["Content-Disposition"] == f'attachment; filename="bookmark-{taken["id"]}.html"'


def test_mistakes_name_the_field(client, auth):
    reply = client.post("/api/bookmarks", json={"a": "rifles-1"}, headers=auth)
    assert reply.status_code == 400 and reply.get_json()["field"] == "b"
    reply = client.post("/api/bookmarks", json={"a": "rifles-1", "b": "nobody"}, headers=auth)
    assert reply.status_code == 404 and reply.get_json()["field"] == "b"
    reply = client.post("/api/bookmarks", json={"c": 1}, headers=auth)
    assert reply.status_code == 400 and reply.get_json()["field"] == "c"
    reply = client.post("/api/bookmarks", json={}, headers=auth)         # nothing selected, no ruler
    assert reply.status_code == 409 and "nothing measured" in reply.get_json()["error"]
    reply = client.get("/api/bookmarks/9")
    assert reply.status_code == 404 and reply.get_json() == {"error": "no bookmark 9", "field": "bookmark_id"}
    assert client.get("/api/bookmarks/9/export").status_code == 404


def test_too_close_to_call_is_said_in_words(tmp_path):
    """raiders-1 24.01" from rifles-1 with a 0.01" sigma at each end: the 95% interval holds the 24"
    standard/cold boundary (as in test_browser_sigma.py), so the export says it could be either band."""
    import math

    from tests.web.server import PIN, make_app
    from tests.web.tables import demo_controller
    from tests.web.test_browser_sigma import scene_with_sigma

    controller = demo_controller(tmp_path, scene=scene_with_sigma(tmp_path, 40.0 - math.sqrt(24.01 ** 2 - 4)))
    try:
        client = make_app(controller, tmp_path).test_client()
        reply = client.post("/api/bookmarks", json={"a": "rifles-1", "b": "raiders-1"}, headers={"X-Table-PIN": PIN})
        taken = reply.get_json()["result"]["bookmark"]
        assert taken["text"] == '24.01" ± 0.03"' and taken["too_close_to_call"]
        html = client.get(f"/api/bookmarks/{taken['id']}/export").get_data(as_text=True)
        assert "Too close to call" in html and "band: standard or cold" in html and "Measure by hand." in html
    finally:
        controller.close()


def test_the_shared_ruler_is_bookmarked_on_request(client, auth):
    reply = client.post("/api/bookmarks", json={"ruler": True}, headers=auth)
    assert reply.status_code == 409 and "no ruler is laid" in reply.get_json()["error"]
    assert client.post("/api/ruler", json={"from": [1, 1], "to": [4, 5]}, headers=auth).status_code == 200
    client.post("/api/select", json={"id": "rifles-1"}, headers=auth)
    client.post("/api/target", json={"id": "sniper-1"}, headers=auth)
    reply = client.post("/api/bookmarks", json={"ruler": True}, headers=auth)      # not the selection
    assert reply.get_json()["result"]["bookmark"]["text"] == '5.00"'
    assert reply.get_json()["result"]["bookmark"]["between"] == [[1.0, 1.0], [4.0, 5.0]]
    reply = client.post("/api/bookmarks", json={"ruler": True, "a": "rifles-1", "b": "sniper-1"}, headers=auth)
    assert reply.status_code == 409 and "not both" in reply.get_json()["error"]
    reply = client.post("/api/bookmarks", json={"ruler": "yes"}, headers=auth)
    assert reply.status_code == 400 and reply.get_json()["field"] == "ruler"
