"""No code outside a rule system's package names a rule system: the table, the live table, the panel
and the scripts read what each system declares on its class (ARCHITECTURE.md, issue 14).

Allowed to name them: table/rules/ (the systems themselves), docs/ and README.md (documentation),
tests/ and data files (scenes, config, the entry points in pyproject.toml), and bench/ (benchmarks of
one system's engine each, like tests)."""

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAMES = re.compile(r"synaptik|tyrants?\b|\baot\b|aot_|syniad|skirmish", re.IGNORECASE)
CODE = {".py", ".js", ".html", ".css", ".sh"}
ALLOWED = ("table/rules", "docs", "tests", "bench")


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
            "table/live/display.py", "table/config.py", "deploy/install-pi.sh"} <= names


def test_no_code_outside_the_rule_systems_names_one():
    hits = [f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
            for path in code_files()
            for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
            if NAMES.search(line)]
    assert hits == []
