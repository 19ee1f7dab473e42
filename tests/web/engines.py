"""The panel in three browser engines, one way: open the page at a phone's size, read what is visible, tap.

- Chromium: Debian's `chromium`, driven by Playwright (as tests/web/browser.py), headless.
- WebKit (every iPhone browser's engine): Debian's WebKitGTK through its WebKitWebDriver, with Selenium; its
  window (tests/web/webkit_window.py) has no headless mode, so it draws on an Xvfb display this module starts.
- Firefox: Debian's firefox-esr, headless, driven by puppeteer-core over WebDriver BiDi (tests/web/node/).

`launch(engine)` starts one browser; its `open(url, size)` gives a `Page` of that size, with its own storage
and touch. A page reads with `js` (a JavaScript function's value, awaited), `texts`/`text` (what is visible of
a selector) and `boxes`; it acts with `tap(selector)`, `tap_at(x, y)` (viewport CSS pixels) and `type(selector,
text)`; `wait` polls a
function until it is truthy. The `engine` fixture (conftest.py) runs a test in each engine. Locally an engine
that is not installed skips its tests, saying why; under CI=true they fail with that reason.
`scripts/install-browser.sh` installs all three.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from tests.web.browser import ARGS, CHROMIUM

ENGINES = ("chromium", "webkit", "firefox")
PHONE = (390, 844)
NARROW = (320, 640)  # the narrowest phones in use
HERE = Path(__file__).resolve().parent
NODE_DIR = HERE / "node"
WEBKIT_WINDOW = HERE / "webkit_window.py"
SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's, with python3-gi and gir1.2-webkit2-4.1
INSTALL = "scripts/install-browser.sh installs it"
# SMARTTABLE_WEBKITDRIVER and SMARTTABLE_FIREFOX name other binaries (test_engines.py names missing ones)
WEBKIT_DRIVER = os.environ.get("SMARTTABLE_WEBKITDRIVER") or shutil.which("WebKitWebDriver") or "/usr/bin/WebKitWebDriver"
FIREFOX = (os.environ.get("SMARTTABLE_FIREFOX") or shutil.which("firefox-esr") or shutil.which("firefox")
           or "/usr/bin/firefox-esr")

# What is visible of the elements a selector matches: each one laid out, not hidden, and at least partly
# inside the viewport, with its text (an SVG element's textContent) and its box in viewport CSS pixels.
VISIBLE = """(selector) => [...document.querySelectorAll(selector)].flatMap((e) => {
  const r = e.getBoundingClientRect(), s = getComputedStyle(e);
  const shown = r.width > 0 && r.height > 0 && s.visibility !== "hidden" && Number(s.opacity) > 0
    && r.bottom > 0 && r.right > 0 && r.top < innerHeight && r.left < innerWidth;
  return shown ? [{ text: (e.innerText ?? e.textContent ?? "").trim(), x: r.x, y: r.y, width: r.width,
                    height: r.height }] : [];
})"""
# The middle of the first element a selector matches, scrolled into view (null until it has a box).
CENTRE = """(selector) => {
  const e = document.querySelector(selector);
  if (!e) return null;
  e.scrollIntoView({ block: "nearest", inline: "nearest" });
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? [r.x + r.width / 2, r.y + r.height / 2] : null;
}"""

PAINTED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


@cache
def missing(engine: str) -> str | None:
    """Why `engine` cannot run here, or None."""
    if engine == "chromium":
        if not Path(CHROMIUM).exists():
            return f"Chromium: Debian's chromium is not at {CHROMIUM} ({INSTALL})"
        return _no_module("playwright")
    if engine == "webkit":
        if not Path(WEBKIT_DRIVER).exists():
            return f"WebKit: WebKitWebDriver is not at {WEBKIT_DRIVER} (Debian's webkit2gtk-driver; {INSTALL})"
        if not shutil.which("Xvfb"):
            return f"WebKit: Xvfb is not installed (Debian's xvfb; {INSTALL})"
        probe = "import gi; gi.require_version('WebKit2', '4.1'); gi.require_version('Gtk', '3.0')"
        if not Path(SYSTEM_PYTHON).exists() or subprocess.run([SYSTEM_PYTHON, "-c", probe],
                                                              capture_output=True).returncode:
            return f"WebKit: {SYSTEM_PYTHON} cannot load WebKit2 4.1 (python3-gi, gir1.2-webkit2-4.1; {INSTALL})"
        return _no_module("selenium")
    if engine == "firefox":
        if not Path(FIREFOX).exists():
            return f"Firefox: Debian's firefox-esr is not at {FIREFOX} ({INSTALL})"
        if not shutil.which("node"):
            return f"Firefox: Node.js is not installed (puppeteer-core runs on it; {INSTALL})"
        if not (NODE_DIR / "node_modules" / "puppeteer-core").is_dir():
            return f"Firefox: puppeteer-core is not in {NODE_DIR}/node_modules (npm ci there; {INSTALL})"
        return None
    raise ValueError(f"unknown engine {engine!r}: one of {', '.join(ENGINES)}")


def _no_module(name: str) -> str | None:
    try:
        __import__(name)
    except ImportError:
        return f"the Python package {name} is not installed (the dev extra: scripts/setup.sh dev)"
    return None


def require(engine: str) -> None:
    """Skip the test (fail it under CI=true), saying why, when `engine` cannot run here."""
    reason = missing(engine)
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(reason, pytrace=False)
        pytest.skip(reason)


class Page:
    """One page in one engine. Subclasses drive their engine; everything else is JavaScript in the page."""

    engine = ""

    def js(self, fn: str, *args: Any) -> Any:
        """The value of the JavaScript function `fn` (source text) called with `args`, awaited."""
        raise NotImplementedError

    def goto(self, url: str) -> None:
        raise NotImplementedError

    def tap(self, selector: str) -> None:
        """Tap the middle of the first element `selector` matches (scrolled into view), as a thumb would:
        whatever lies on top there gets the tap."""
        self.tap_at(*self.wait(CENTRE, selector))

    def tap_at(self, x: float, y: float) -> None:
        """Tap the viewport point (x, y), in CSS pixels."""
        raise NotImplementedError

    def type(self, selector: str, text: str) -> None:
        """Tap the field `selector`, then type `text` into it key by key."""
        self.tap(selector)
        self.wait("(s) => document.activeElement === document.querySelector(s)", selector)
        self.keys(text)

    def keys(self, text: str) -> None:
        raise NotImplementedError

    def screenshot(self, path: Path) -> Path:
        """The viewport as the engine paints it, once what the page shows now has been painted (WebKit's
        screenshot is otherwise the frame before, seconds old on a loaded machine). Its folder is made if
        it is not there (the tests run in any order)."""
        self.js(PAINTED)
        path.parent.mkdir(parents=True, exist_ok=True)
        return self.capture(path)

    def capture(self, path: Path) -> Path:
        raise NotImplementedError

    def errors(self) -> list[str]:
        """The page's uncaught errors so far."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def boxes(self, selector: str) -> list[dict[str, Any]]:
        """The visible elements `selector` matches: text, x, y, width, height (viewport CSS pixels)."""
        return list(self.js(VISIBLE, selector))

    def texts(self, selector: str) -> list[str]:
        return [b["text"] for b in self.boxes(selector)]

    def text(self, selector: str) -> str:
        """The visible text of what `selector` matches, one element a line ("" when none is visible)."""
        return "\n".join(self.texts(selector))

    def wait(self, fn: str, *args: Any, timeout: float = 15.0) -> Any:
        """Poll `fn` until its value is truthy, and return it; fail naming the engine and the last value."""
        deadline = time.monotonic() + timeout
        while True:
            value = self.js(fn, *args)
            if value or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert value, f"{self.engine}: {fn} was still {value!r} after {timeout:g} s"
        return value

    def wait_text(self, selector: str, expected: str, timeout: float = 15.0) -> str:
        """Wait until the visible text of `selector` contains `expected`; return that text."""
        deadline = time.monotonic() + timeout
        while expected not in (seen := self.text(selector)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert expected in seen, f"{self.engine}: {selector} shows {seen!r}, not {expected!r}"
        return seen


class Browser:
    engine = ""

    def open_page(self, size: tuple[int, int]) -> Page:
        raise NotImplementedError

    @contextmanager
    def open(self, url: str, size: tuple[int, int] = PHONE) -> Iterator[Page]:
        """A fresh phone of `size` (CSS pixels; touch, its own storage) on `url`; fails on a page error."""
        page = self.open_page(size)
        try:
            page.goto(url)
            yield page
            errors = page.errors()
            assert errors == [], f"{self.engine}: page errors {errors}"
        finally:
            page.close()

    def close(self) -> None:
        raise NotImplementedError


# Chromium ------------------------------------------------------------------------------------------------

class ChromiumPage(Page):
    engine = "chromium"

    def __init__(self, browser: Any, size: tuple[int, int]) -> None:
        self.context = browser.new_context(viewport={"width": size[0], "height": size[1]}, device_scale_factor=2,
                                           has_touch=True, is_mobile=True)
        self.page = self.context.new_page()
        self._errors: list[str] = []
        self.page.on("pageerror", lambda exc: self._errors.append(str(exc)))

    def js(self, fn: str, *args: Any) -> Any:
        return self.page.evaluate(f"(args) => ({fn})(...args)", list(args))

    def goto(self, url: str) -> None:
        self.page.goto(url)

    def tap_at(self, x: float, y: float) -> None:
        self.page.touchscreen.tap(x, y)

    def keys(self, text: str) -> None:
        self.page.keyboard.type(text)

    def capture(self, path: Path) -> Path:
        self.page.screenshot(path=str(path))
        return path

    def errors(self) -> list[str]:
        return list(self._errors)

    def close(self) -> None:
        self.context.close()


class Chromium(Browser):
    engine = "chromium"

    def __init__(self) -> None:
        from playwright.sync_api import sync_playwright

        self.playwright = sync_playwright().start()
        self.browser = self.playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)

    def open_page(self, size: tuple[int, int]) -> Page:
        return ChromiumPage(self.browser, size)

    def close(self) -> None:
        self.browser.close()
        self.playwright.stop()


# WebKit --------------------------------------------------------------------------------------------------

class WebKitPage(Page):
    engine = "webkit"

    def __init__(self, display: str, size: tuple[int, int]) -> None:
        from selenium import webdriver
        from selenium.webdriver.webkitgtk.options import Options
        from selenium.webdriver.webkitgtk.service import Service

        options = Options()
        options.binary_location = SYSTEM_PYTHON
        options.add_argument(str(WEBKIT_WINDOW))
        options.set_capability("browserName", "smarttable-webkit")
        # GDK_SCALE 2: two device pixels a CSS pixel, as on a phone
        service = Service(WEBKIT_DRIVER, env={**os.environ, "DISPLAY": display, "GDK_SCALE": "2"})
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_window_size(*size)

    def js(self, fn: str, *args: Any) -> Any:
        return self.driver.execute_script(f"return ({fn})(...arguments)", *args)

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def tap_at(self, x: float, y: float) -> None:
        from selenium.webdriver.common.actions import interaction
        from selenium.webdriver.common.actions.action_builder import ActionBuilder
        from selenium.webdriver.common.actions.pointer_input import PointerInput

        actions = ActionBuilder(self.driver, mouse=PointerInput(interaction.POINTER_TOUCH, "finger"))
        actions.pointer_action.move_to_location(int(round(x)), int(round(y))).pointer_down().pointer_up()
        actions.perform()

    def keys(self, text: str) -> None:
        from selenium.webdriver.common.action_chains import ActionChains

        ActionChains(self.driver).send_keys(text).perform()

    def capture(self, path: Path) -> Path:
        self.driver.save_screenshot(str(path))
        return path

    def errors(self) -> list[str]:
        return list(self.js("() => window.__pageErrors || []"))

    def close(self) -> None:
        self.driver.quit()


class WebKit(Browser):
    engine = "webkit"

    def __init__(self) -> None:
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-screen", "0", "2000x2000x24",
                                      "-nolisten", "tcp"], pass_fds=(write,), stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as numbers:
            number = numbers.readline().strip()  # Xvfb writes the display it took once it is ready
        if not number:
            raise RuntimeError("webkit: Xvfb did not start")
        self.display = f":{number}"

    def open_page(self, size: tuple[int, int]) -> Page:
        return WebKitPage(self.display, size)

    def close(self) -> None:
        self.xvfb.terminate()
        self.xvfb.wait(timeout=10)


# Firefox -------------------------------------------------------------------------------------------------

class Bridge:
    """tests/web/node/firefox.mjs: one JSON line a request, one a reply."""

    def __init__(self) -> None:
        self.stderr = tempfile.TemporaryFile("w+")  # read when the driver stops; a pipe could fill up
        self.process = subprocess.Popen(["node", str(NODE_DIR / "firefox.mjs"), FIREFOX],
                                        cwd=NODE_DIR, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=self.stderr, text=True)
        self.replies: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.count = 0
        self.version = self._reply(0, timeout=120.0)  # Firefox's first start on a loaded machine is slow

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.replies.put(line)
        self.replies.put("")

    def _reply(self, expected: int, timeout: float) -> Any:
        try:
            line = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"firefox: no answer in {timeout:g} s") from None
        if not line:
            self.stderr.seek(0)
            raise RuntimeError(f"firefox: the driver stopped: {self.stderr.read()[-2000:]}")
        message = json.loads(line)
        assert message["id"] == expected, message
        if "error" in message:
            raise AssertionError(f"firefox: {message['error']}")
        return message["value"]

    def call(self, op: str, timeout: float = 60.0, **args: Any) -> Any:
        assert self.process.stdin is not None
        self.count += 1
        self.process.stdin.write(json.dumps({"id": self.count, "op": op, **args}) + "\n")
        self.process.stdin.flush()
        return self._reply(self.count, timeout)

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()  # the driver closes Firefox and ends
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.stderr.close()


class FirefoxPage(Page):
    engine = "firefox"

    def __init__(self, bridge: Bridge, size: tuple[int, int]) -> None:
        self.bridge = bridge
        self.id = bridge.call("open", width=size[0], height=size[1])

    def js(self, fn: str, *args: Any) -> Any:
        return self.bridge.call("js", page=self.id, fn=fn, args=list(args))

    def goto(self, url: str) -> None:
        self.bridge.call("goto", page=self.id, url=url)

    def tap_at(self, x: float, y: float) -> None:
        self.bridge.call("tapAt", page=self.id, x=x, y=y)

    def keys(self, text: str) -> None:
        self.bridge.call("keys", page=self.id, text=text)

    def capture(self, path: Path) -> Path:
        self.bridge.call("screenshot", page=self.id, path=str(path))
        return path

    def errors(self) -> list[str]:
        return list(self.bridge.call("errors", page=self.id))

    def close(self) -> None:
        self.bridge.call("close", page=self.id)


class Firefox(Browser):
    engine = "firefox"

    def __init__(self) -> None:
        self.bridge = Bridge()

    def open_page(self, size: tuple[int, int]) -> Page:
        return FirefoxPage(self.bridge, size)

    def close(self) -> None:
        self.bridge.close()


@contextmanager
def launch(engine: str) -> Iterator[Browser]:
    """One running browser of `engine` (skipped, or failed under CI, when it is not installed)."""
    require(engine)
    browser: Browser = {"chromium": Chromium, "webkit": WebKit, "firefox": Firefox}[engine]()
    try:
        yield browser
    finally:
        browser.close()
