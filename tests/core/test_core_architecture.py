"""The import arrows of ARCHITECTURE.md hold: each room imports only what it may."""

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARDWARE_LIBS = ("gpiozero", "spidev", "lgpio", "RPi", "picamera2")
WEB_LIBS = ("flask", "werkzeug", "waitress")


@functools.cache           # each file parsed once, whichever rooms it is checked for
def imports_of(path: Path) -> frozenset[str]:
    """Every module a file imports, anywhere in it (lazy imports inside functions included)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return frozenset(names)


def files(*rooms: str, exclude: tuple[str, ...] = ()) -> list[Path]:
    found = []
    for room in rooms:
        target = ROOT / room
        for path in sorted(target.rglob("*.py")) if target.is_dir() else [target]:
            if not any(path.is_relative_to(ROOT / ex) for ex in exclude):
                found.append(path)
    return found


def offences(paths: list[Path], forbidden: tuple[str, ...], allowed: tuple[str, ...] = ()) -> list[str]:
    """Each import of a forbidden module (or one inside it) that is not one of the `allowed` modules."""
    bad = []
    for path in paths:
        for name in imports_of(path):
            if any(name == f or name.startswith(f + ".") for f in forbidden) and name not in allowed:
                bad.append(f"{path.relative_to(ROOT)} imports {name}")
    return bad


CORE = files("table", exclude=("table/live", "table/hw", "table/commands", "table/cli.py"))
LIVE_ONLY = ("table.live", "table.hw", "table.cli", "table.commands")


# The club's hub reads only what tables publish, never a controller's insides: of the live table it reads
# the published events' format alone, with the table's own decoders (one reader of an event, not two), and
# tells them in the table's own sentences (one set, as the panel's log and replay); of the panel it uses the
# web server's limits alone (web_ui/__init__.py imports the panel only on use).
HUB_READS = ("table.live.events", "table.live.summaries")
HUB_SERVES_WITH = ("web_ui.channels", "web_ui.server")


@pytest.mark.parametrize("room, paths, forbidden, allowed", [
    ("core (table/, table/rules/...)", CORE, ("cv2", *HARDWARE_LIBS, *WEB_LIBS, "vision", "web_ui", "hub",
                                              "paho", *LIVE_ONLY), ()),
    ("hardware (table/hw/)", files("table/hw"), ("cv2", *WEB_LIBS, "vision", "web_ui", "table.live",
                                                 "table.rules", "table.cli", "table.commands"), ()),
    ("vision/", files("vision"), (*WEB_LIBS, "gpiozero", "web_ui", *LIVE_ONLY), ()),
    ("web_ui/", files("web_ui"), ("cv2", *HARDWARE_LIBS, "vision", "table.hw", "table.cli", "table.commands",
                                  "hub"), ()),
    ("hub/", files("hub"), ("cv2", *HARDWARE_LIBS, "vision", "web_ui", *LIVE_ONLY, "table.rules", "table.scene"),
     (*HUB_READS, *HUB_SERVES_WITH)),
])
def test_rooms_import_only_what_they_may(room, paths, forbidden, allowed):
    assert paths, f"no files found for {room}"
    assert offences(paths, forbidden, allowed) == []


def test_the_hub_reads_the_events_with_the_tables_own_decoders_and_nothing_else_of_the_live_table():
    used = {name for path in files("hub") for name in imports_of(path) if name.startswith("table.live")}
    assert used == set(HUB_READS)


def test_the_hub_serves_without_loading_the_panel():
    import subprocess
    import sys

    loaded = subprocess.run([sys.executable, "-c", "import sys, hub.web; print(sorted(sys.modules))"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    assert "'web_ui.channels'" in loaded and "'web_ui.app'" not in loaded and "'table.live.controller'" not in loaded


# The project's own modules the hardware layer may use: the shared errors, the config (reading a TOML file,
# the typed [hardware] section) and finding a strip class by name (table.plugins: entry points).
HW_MAY_USE = ("table.errors", "table.config", "table.plugins", "table.hw")
ROOMS = {"hardware": files("table/hw"), "live": files("table/live")}


def test_the_hardware_layer_uses_only_the_shared_errors_and_config_reading():
    used = {name for path in ROOMS["hardware"] for name in imports_of(path)
            if name.split(".")[0] in ("table", "vision", "web_ui", "hub")}
    assert used and all(any(n == a or n.startswith(a + ".") for a in HW_MAY_USE) for n in used), used


def test_the_live_table_imports_no_panel_hub_or_cli():
    assert offences(ROOMS["live"], ("web_ui", "hub", "table.cli", "table.commands", "flask")) == []


def test_the_core_has_the_modules_the_architecture_names():
    names = {p.relative_to(ROOT).as_posix() for p in CORE}
    for module in ("table/scene.py", "table/geometry.py", "table/hexgrid.py", "table/config.py",
                   "table/rules/base.py", "table/snapshot.py"):
        assert module in names


# The command line (table/cli.py, table/commands/) may use any room, but imports a room only on use (inside
# the function that needs it), so `smarttable --help` loads no camera, panel or hub; at module level it
# imports only the standard library, its own modules and the core (a TYPE_CHECKING block is no import).
COMMAND_LINE = files("table/cli.py", "table/commands")
ROOMS_LOADED_ON_USE = ("table.live", "table.hw", "vision", "web_ui", "hub", "cv2", "numpy", "flask", "paho",
                       *HARDWARE_LIBS, *WEB_LIBS)


def module_level_imports(path: Path) -> set[str]:
    """The modules a file imports when it is imported (not inside a function, not under TYPE_CHECKING)."""
    names: set[str] = set()
    pending: list[ast.stmt] = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
        elif isinstance(node, ast.If) and "TYPE_CHECKING" not in ast.unparse(node.test):
            pending += [*node.body, *node.orelse]
        elif isinstance(node, ast.Try):
            pending += [*node.body, *node.orelse, *node.finalbody, *(s for h in node.handlers for s in h.body)]
        elif isinstance(node, (ast.With, ast.ClassDef)):
            pending += node.body
    return names


def test_the_command_line_imports_the_rooms_only_on_use():
    assert len(COMMAND_LINE) > 2
    lazily = {name for path in COMMAND_LINE for name in imports_of(path)} - {
        name for path in COMMAND_LINE for name in module_level_imports(path)}
    assert {"vision", "web_ui", "hub", "table.live"} <= {n.split(".")[0] if not n.startswith("table.") else
                                                        ".".join(n.split(".")[:2]) for n in lazily}, lazily
    bad = [f"{path.relative_to(ROOT)} imports {name} at module level" for path in COMMAND_LINE
           for name in sorted(module_level_imports(path))
           if any(name == f or name.startswith(f + ".") for f in ROOMS_LOADED_ON_USE)]
    assert bad == []


def test_no_room_imports_the_command_line():
    rooms = files("table", "vision", "web_ui", "hub", exclude=("table/cli.py", "table/commands"))
    assert offences(rooms, ("table.cli", "table.commands")) == []
