"""Tracked models on a hex board: each model's hex with hysteresis (hexgrid's `HexSnapper`), so a
model standing on a hexside does not flicker between two hexes, and the hexes the camera sees."""

from __future__ import annotations

from collections.abc import Mapping

from table.hexgrid import Hex, HexLayout, HexSnapper
from table.live.session import GameState

HEX_HYSTERESIS = 0.25      # a tracked model changes hex once this far (in apothems) past the hexside


class HexTracker:
    """The snapper of the current scene's hex grid, its models placed where the game has them."""

    def __init__(self) -> None:
        self._grid: object = None
        self._snapper: HexSnapper | None = None

    def reset(self) -> None:
        self._grid, self._snapper = None, None

    def snapper(self, state: GameState) -> HexSnapper | None:
        """The snapper for the state's grid (None for a scene without hexes)."""
        grid = state.scene.hexgrid
        if grid is None:
            return None
        if self._snapper is None or self._grid != grid:
            layout = HexLayout.from_spec(grid)
            snapper = HexSnapper(layout, HEX_HYSTERESIS * layout.size * 3 ** 0.5 / 2)
            for model in state.scene.models:
                if model.hex is not None:
                    snapper.snap(model.id, *layout.to_board(model.hex))
            self._grid, self._snapper = grid, snapper
        return self._snapper

    def observed(self, state: GameState, seen: Mapping[int, tuple[float, float]] | None) -> dict[str, Hex]:
        """Model id -> the hex the camera sees it in (`seen`: marker -> board point); with no frame
        yet (None), where the game has each model."""
        snapper = self.snapper(state)
        if seen is None or snapper is None:
            return {m.id: m.hex for m in state.scene.models if m.hex is not None}
        bound = state.markers()
        return {bound[k]: snapper.current(bound[k]) or snapper.snap(bound[k], x, y)
                for k, (x, y) in seen.items() if k in bound}
