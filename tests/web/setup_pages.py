"""What a player does on the panel's Set-up pages, for the browser tests (any engine's `Page`): set a form's
field, read what a part of the page shows once scrolled to, start a new game, add a unit."""

from __future__ import annotations

# each rule system's move stat (a unit field every system has), and the systems played on hexes
MOVE = {"synaptik": "movement", "age_of_tyrants": "move", "syniad": "movement", "hex_skirmish": "movement"}
HEX = {"hex_skirmish", "syniad"}

SET = """([selector, value]) => { const e = document.querySelector(selector); e.value = value;
  e.dispatchEvent(new Event('change', { bubbles: true })); return e.value; }"""


def see(page, selector: str, text: str) -> str:
    """What `selector` shows once the player scrolls to it."""
    page.wait("(s) => { const e = document.querySelector(s); e?.scrollIntoView({ block: 'center' }); return !!e; }",
              selector)
    return page.wait_text(selector, text)


def start_game(page, system: str) -> None:
    """Set-up > Game: a new game of `system` on an empty board with the form's players, confirmed."""
    page.wait("(v) => !!document.querySelector(`#game-form select[name=ruleset] option[value=${v}]`)", system)
    assert page.js(SET, ["#game-form select[name=ruleset]", system]) == system
    page.wait("() => document.querySelector('#game-form select[name=scenario] option').textContent === "
              "'Empty board'")
    page.tap("#game-form button[type=submit]")
    page.wait_text("#confirm-text", f"start a new {system} game")
    page.tap("#confirm-dialog button[value=ok]")


def add_unit(page, move: str, unit: str = "blue", player: str | None = None, speed: int = 5) -> None:
    """Set-up > Army: a unit `unit` of `player` (default: the form's first) with its move stat `speed`, a
    weapon named Gun where the system has weapons, every other field at its default."""
    page.js(SET, ["#unit-form input[name=id]", unit])
    if player is not None:
        assert page.js(SET, ["#unit-form select[name=player]", player]) == player
    page.js(SET, [f"#unit-stats [data-field={move}] input", str(speed)])
    if page.js("() => !document.getElementById('unit-weapon').hidden"):
        page.js(SET, ["#unit-weapon input[name=weapon]", "Gun"])
    page.tap("#unit-submit")
