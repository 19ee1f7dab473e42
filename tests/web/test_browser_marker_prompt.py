"""Each model gets its marker by being placed on the table (issue 23): on a real sandbox table
(`smarttable run --sandbox`), a marker put down on its board that no model has makes the panel ask which
model it is, offering the models without a marker of the unit just added; a tap gives it that model, and the
camera puts the model where the marker lies. Chromium at 390x844."""

from __future__ import annotations

import math

import pytest

from tests.web.engines import PHONE
from tests.web.setup_pages import SET, see
from tests.web.table_process import PIN, running_table


@pytest.mark.parametrize("engine", ["chromium"], indirect=True)
def test_the_panel_asks_which_model_a_placed_marker_is(engine, tmp_path):
    with running_table(tmp_path, mode="--sandbox") as table:
        table.wait_for(lambda s: s["status"]["camera"] == "ok" and s["status"]["calibration"] == "ok")
        with engine.open(table.url + "/#setup/army", PHONE) as page:
            page.js("(pin) => localStorage.setItem('smarttable-pin', pin)", PIN)
            page.wait("() => !!document.querySelector('#unit-form[data-system=synaptik] [data-field=movement]')")
            page.js(SET, ["#unit-form input[name=id]", "blue"])
            page.js(SET, ["#unit-form input[name=count]", "2"])
            page.js(SET, ["#unit-weapon input[name=weapon]", "Gun"])
            page.tap("#unit-submit")
            see(page, "#unit-list", "blue")
            table.put("/api/sandbox/markers/40", {"x": 30.0, "y": 30.0, "heading": -90.0})
            see(page, "#marker-question", "Marker 40")
            offered = page.js("() => [...document.querySelectorAll('#marker-models button')].map((b) => b.dataset.model)")
            assert offered == ["blue-1", "blue-2"]
            page.tap("#marker-models button[data-model=blue-1]")
            state = table.wait_for(lambda s: any(m["id"] == "blue-1" and m.get("marker") == 40 and m.get("x")
                                                 and math.hypot(m["x"] - 30, m["y"] - 30) < 0.1
                                                 for m in s["scene"]["models"]))
            assert state["status"]["unassigned"] == [] or all(u["marker"] != 40 for u in state["status"]["unassigned"])
            table.put("/api/sandbox/markers/41", {"x": 31.0, "y": 30.0, "heading": -90.0})
            see(page, "#marker-question", "Marker 41")
            page.wait("() => [...document.querySelectorAll('#marker-models button')].map((b) => b.dataset.model)"
                      ".join() === 'blue-2'")
            page.tap("#marker-models button[data-model=blue-2]")
            table.wait_for(lambda s: any(m["id"] == "blue-2" and m.get("marker") == 41 for m in s["scene"]["models"]))
            page.wait("() => document.getElementById('marker-prompt').hidden")
            assert page.errors() == []
