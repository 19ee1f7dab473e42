"""Every rule system's rulings page decides the open rulings in a section of its own, and names every
ruling option its class declares (so a switch is never undocumented)."""

from pathlib import Path

import pytest

from table.rules import get_ruleset

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", ["synaptik", "age_of_tyrants", "syniad", "hex_skirmish"])
def test_the_rulings_page_has_the_open_rulings_and_every_option(name):
    cls = get_ruleset(name)
    page = (ROOT / cls.rulings_page).read_text(encoding="utf-8")
    assert "\n## Open rulings\n" in page, f"{cls.rulings_page} has no Open rulings section"
    section = page.split("\n## Open rulings\n", 1)[1].split("\n## ", 1)[0]
    assert section.count("\n|") >= 5, "the open rulings are listed in a table"
    missing = [o.name for o in cls.options if f"`{o.name}" not in page]
    assert missing == [], f"{cls.rulings_page} does not name the options {missing}"
