"""No code outside a rule system's package names a rule system: the table, the live table, the panel
and the scripts read what each system declares on its class (ARCHITECTURE.md, issue 14).

Allowed to name them: table/rules/ (the systems themselves), docs/ and README.md (documentation),
tests/ and data files (scenes, config, the entry points in pyproject.toml), and the benches listed in
ONE_SYSTEM_BENCHES (each benches one named system's engine, like a test); any other bench must read what
the systems declare, as bench/led_agreement.py does."""

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMES = re.compile(r"synaptik|tyrants?\b|\baot\b|aot_|syniad|skirmish", re.IGNORECASE)
CODE = {".py", ".js", ".html", ".css", ".sh"}
ONE_SYSTEM_BENCHES = {
    "bench/aot_baseline.py": "the plain Age of Tyrants computation bench_report_aot.py compares against",
    "bench/aot_scenes.py": "Age of Tyrants armies for its benches",
    "bench/bench_aot_armies.py": "Age of Tyrants' engine on full armies",
    "bench/bench_report.py": "Synaptik's report against its plain baseline",
    "bench/bench_report_aot.py": "Age of Tyrants' report against its plain baseline",
    "bench/bench_hex.py": "Syniad's live-table analysis on a hex board",
    "bench/bench_skirmish.py": "Hex Skirmish's engine",
    "bench/bench_los_terrain.py": "Synaptik's line of sight on a crowded board",
    "bench/skirmish_scene.py": "Hex Skirmish scenes for its bench",
    "bench/synaptik_baseline.py": "the plain Synaptik computation bench_report.py compares against",
    "bench/synaptik_scene.py": "Synaptik scenes for its benches",
}
ALLOWED = ("table/rules", "docs", "tests", *ONE_SYSTEM_BENCHES)


def code_files() -> list[Path]:
    found = []
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))     # never into .venv, .git, ...
        for name in sorted(files):
            path = Path(folder, name)
            relative = path.relative_to(ROOT)
            if (path.suffix in CODE and not name.startswith(".") and ".egg-info" not in str(relative)
                    and not any(relative.is_relative_to(a) for a in ALLOWED)):
                found.append(path)
    return found


def test_the_search_covers_the_code():
    names = {p.relative_to(ROOT).as_posix() for p in code_files()}
    assert {"table/scene.py", "table/live/session.py", "web_ui/static/js/dice.js", "web_ui/rolls.py",
            "table/live/display.py", "table/config.py", "deploy/install-pi.sh", "bench/led_agreement.py",
            "bench/bench_club.py"} <= names


def test_each_exempt_bench_is_there_and_names_its_system():
    """The list stays honest: a bench that no longer names a system leaves it."""
    for bench, reason in ONE_SYSTEM_BENCHES.items():
        assert reason and NAMES.search((ROOT / bench).read_text(encoding="utf-8")), bench


def test_no_code_outside_the_rule_systems_names_one():
    hits = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
            for path in code_files()
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if NAMES.search(line)]
    assert hits == []
