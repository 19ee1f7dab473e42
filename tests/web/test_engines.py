"""The three-engine harness itself (tests/web/engines.py): each engine opens a page at the size asked for,
reads only what is visible, and a tap lands where a thumb would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from flask import Flask

from tests.web.engines import NARROW, PHONE
from tests.web.server import LiveServer

ROOT = Path(__file__).resolve().parents[2]

PAGE = """<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1">
<style>button, div { touch-action: manipulation; }</style><!-- as the panel's controls (panel.css) -->
<body style="margin:0">
<p id="shown">on screen</p><p id="hidden" hidden>not shown</p><p id="below" style="margin-top:3000px">below</p>
<button id="b" style="position:fixed;left:40px;top:100px;width:120px;height:50px"
        onclick="this.textContent = 'tapped ' + event.pointerType">tap me</button>
<div id="cover" style="position:fixed;left:200px;top:100px;width:100px;height:50px;background:red;z-index:1"
     onclick="this.textContent = 'cover'"></div>
<button id="under" style="position:fixed;left:210px;top:110px" onclick="this.textContent = 'under'">under</button>
</body>"""


@pytest.fixture(scope="module")
def url():
    app = Flask(__name__)
    app.add_url_rule("/", "page", lambda: PAGE)
    server = LiveServer(app)
    yield server.url + "/"
    server.close()


@pytest.mark.parametrize("size", [PHONE, NARROW])
def test_a_page_opens_at_the_size_asked_for_and_reads_what_is_visible(engine, url, size):
    with engine.open(url, size) as page:
        assert page.js("() => [innerWidth, innerHeight]") == list(size)
        assert page.text("p") == "on screen"            # not the hidden one, not the one below the fold
        assert page.js("() => devicePixelRatio") == 2
        page.tap("#b")
        # WebKitGTK delivers a WebDriver touch as a mouse's pointer events (its desktop build)
        assert page.wait_text("#b", "tapped") == ("tapped mouse" if page.engine == "webkit" else "tapped touch")
        page.tap("#under")                                # a thumb on it taps the cover lying on top
        page.wait_text("#cover", "cover")
        assert page.text("#under") == "under"


PROBE = '''def test_opens_a_page(engine):
    with engine.open("about:blank") as page:
        assert page.js("() => 1 + 1") == 2
'''


def run_probe(tmp_path: Path, ci: str) -> subprocess.CompletedProcess[str]:
    """The probe in WebKit and Firefox, their binaries named at paths that are not there. Only the harness's
    conftest is loaded, none of the installed plugins (hypothesis, schemathesis...: seconds of imports, a
    minute on a loaded machine); the timeout only stops a hang."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE, encoding="utf-8")
    env = {**os.environ, "SMARTTABLE_WEBKITDRIVER": str(tmp_path / "no-driver"), "CI": ci,
           "SMARTTABLE_FIREFOX": str(tmp_path / "no-firefox"), "PYTHONPATH": str(ROOT),
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-rsE", "-p", "no:cacheprovider",
                           "-p", "tests.web.conftest", "--rootdir", str(tmp_path),
                           str(probe) + "::test_opens_a_page[webkit]", str(probe) + "::test_opens_a_page[firefox]"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def test_a_missing_engine_skips_with_the_reason_locally(tmp_path):
    done = run_probe(tmp_path, ci="")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 skipped" in done.stdout
    assert "WebKitWebDriver is not at" in done.stdout and "firefox-esr is not at" in done.stdout


def test_a_missing_engine_fails_under_ci(tmp_path):
    done = run_probe(tmp_path, ci="true")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "2 errors" in done.stdout and "skipped" not in done.stdout
    assert "WebKitWebDriver is not at" in done.stdout and "firefox-esr is not at" in done.stdout
