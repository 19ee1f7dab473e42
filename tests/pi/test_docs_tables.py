"""Every Markdown table in the docs is whole: a run of `|` lines starts with its header and separator
row, so a stray blank line cannot cut a table in two (as once happened to the status-LED table)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SEPARATOR = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$")


def tables(text: str) -> list[tuple[int, list[str]]]:
    """(first line number, lines) of each run of table lines outside code fences."""
    runs: list[tuple[int, list[str]]] = []
    fenced, current, start = False, [], 0
    for number, line in enumerate(text.splitlines() + [""], start=1):
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("|"):
            if not current:
                start = number
            current.append(line)
        elif current:
            runs.append((start, current))
            current = []
    return runs


def test_every_table_has_a_header_and_rows_of_its_width():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    checked = 0
    for page in pages:
        for start, lines in tables(page.read_text(encoding="utf-8")):
            where = f"{page.relative_to(ROOT)}:{start}"
            assert len(lines) >= 2 and SEPARATOR.match(lines[1]), f"{where}: a table without its header row"
            width = lines[1].count("|")
            for offset, line in enumerate(lines):
                cells = line.replace("\\|", "").count("|")
                assert cells == width, f"{where}: row {offset + 1} has {cells - 1} cells, the header {width - 1}"
            checked += 1
    assert checked > 10


def test_the_status_led_table_holds_the_pin_row():
    text = (ROOT / "docs" / "hardware.md").read_text(encoding="utf-8")
    section = text.split("## Status LED", 1)[1]
    (start, lines), *_ = tables(section)
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert any("PIN" in line for line in lines) and "state" in header
