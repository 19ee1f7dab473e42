"""Printable marker sheets: model markers at their printed size with id labels, corner markers on
their own page, as a multi-page PDF or PNG pages (Pillow). Print at 100% ("actual size").

Each page says what is on it and at what size, has a 100 mm scale bar to check the printer with a
ruler, and a light cut line around each tile (the marker and its white margin, which the detector needs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
from PIL import Image, ImageDraw, ImageFont

from table.errors import ConfigError
from vision.detect import MM_PER_INCH, get_dictionary
from vision.panel_page import Font, panel_page

PAGES_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
QUIET_CELLS = 1  # white margin around each marker, in cells (the detector expects it)
SCALE_BAR_MM = 100.0
HEADER_MM = 16.0  # the page's title, the print-at-100% line and the scale bar
MIN_CELL_PX = 3  # a printed cell narrower than this many dots is not a clean square
CUT_GREY = 170


@dataclass(frozen=True)
class SheetSpec:
    dictionary: str
    ids: tuple[int, ...]
    size_mm: float
    corner_ids: tuple[int, ...] = ()
    corner_size_mm: float = 50.0
    pointer_id: int | None = None  # the pointer token, printed at the model size after the corners
    page: str = "a4"
    dpi: int = 300
    margin_mm: float = 10.0
    panel_url: str | None = None  # a last page with the panel's address as a QR code (vision.panel_page)

    def __post_init__(self) -> None:
        if not self.size_mm > 0 or not self.corner_size_mm > 0:
            raise ConfigError(f"marker size {min(self.size_mm, self.corner_size_mm):g} mm: "
                              "a marker's side must be more than 0 mm")
        check_dpi(self.dpi)
        if self.page not in PAGES_MM:
            raise ConfigError(f"page {self.page!r}: a4 or letter")


def check_dpi(dpi: int) -> None:
    if dpi <= 0:
        raise ConfigError(f"--dpi {dpi}: the print resolution must be more than 0 dots per inch")


def check_cells(dictionary: cv2.aruco.Dictionary, size_mm: float, dpi: int) -> None:
    """A marker needs a few printed dots a cell to come out as clean squares."""
    cell_px = size_mm / MM_PER_INCH * dpi / (dictionary.markerSize + 2)
    if cell_px < MIN_CELL_PX:
        raise ConfigError(f"a {size_mm:g} mm marker at {dpi} dpi has {cell_px:.1f} dots a cell (need "
                          f"{MIN_CELL_PX}): raise --dpi")


def mm_px(mm: float, dpi: int) -> int:
    return int(round(mm / MM_PER_INCH * dpi))


def marker_tile(dictionary: cv2.aruco.Dictionary, marker_id: int, size_mm: float, dpi: int,
                font: Font, label: str) -> Image.Image:
    """The marker (black square exactly size_mm), its white margin, a facing tick and a label."""
    side = mm_px(size_mm, dpi)
    cells = dictionary.markerSize + 2
    quiet = int(round(side / cells * QUIET_CELLS))
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, side, borderBits=1)
    label_h = max(12, mm_px(3.5, dpi))
    tile = Image.new("L", (side + 2 * quiet, side + 2 * quiet + label_h + quiet), 255)
    tile.paste(Image.fromarray(img), (quiet, quiet))
    draw = ImageDraw.Draw(tile)
    # a thin tick above the top edge: the model faces this way (the contract's heading)
    mid = quiet + side // 2
    draw.line([(mid, 0), (mid, max(1, quiet // 2))], fill=0, width=max(1, dpi // 150))
    draw.text((quiet, side + 2 * quiet), label, fill=0, font=font)
    return tile


def header(page: Image.Image, title: str, dpi: int, margin_mm: float) -> None:
    """The page's title, the print-at-100% line and a 100 mm scale bar with 10 mm ticks, at the top."""
    draw = ImageDraw.Draw(page)
    font = ImageFont.load_default(size=max(10, mm_px(2.8, dpi)))
    margin = mm_px(margin_mm, dpi)
    line = max(1, dpi // 100)
    draw.text((margin, margin), title, fill=0, font=font)
    draw.text((margin, margin + mm_px(4.0, dpi)), "Print at 100% (actual size, no fit-to-page): the bar "
              f"below must measure {SCALE_BAR_MM:g} mm.", fill=0, font=font)
    y = margin + mm_px(11.0, dpi)
    x0, x1 = margin, margin + mm_px(SCALE_BAR_MM, dpi)
    draw.line([(x0, y), (x1, y)], fill=0, width=line)
    for k in range(int(SCALE_BAR_MM / 10) + 1):
        x = x0 + mm_px(10.0 * k, dpi)
        draw.line([(x, y - mm_px(2.0 if k % 5 == 0 else 1.0, dpi)), (x, y)], fill=0, width=line)
    draw.text((x1 + mm_px(2.0, dpi), y - mm_px(3.0, dpi)), f"{SCALE_BAR_MM:g} mm", fill=0, font=font)


def paged(tiles: list[Image.Image], spec: SheetSpec, title: str, boxes: bool = True) -> list[Image.Image]:
    """The tiles laid out on pages under `title`, with a cut line round each (`boxes`: a rectangle;
    tiles that carry their own cut line, as round stickers do, go without)."""
    width_mm, height_mm = PAGES_MM[spec.page]
    page_w, page_h = mm_px(width_mm, spec.dpi), mm_px(height_mm, spec.dpi)
    margin = mm_px(spec.margin_mm, spec.dpi)
    top = margin + mm_px(HEADER_MM, spec.dpi)
    gap = mm_px(3.0, spec.dpi)
    pages: list[Image.Image] = []
    page = None
    x = y = row_h = 0
    for tile in tiles:
        if tile.width > page_w - 2 * margin or tile.height > page_h - top - margin:
            raise ConfigError(f"a {tile.width / spec.dpi * MM_PER_INCH:.0f} mm marker does not fit on a "
                              f"{spec.page} page")
        if page is None or x + tile.width > page_w - margin:
            x, y, row_h = margin, y + row_h + gap, 0
        if page is None or y + tile.height > page_h - margin:
            page = Image.new("L", (page_w, page_h), 255)
            header(page, title, spec.dpi, spec.margin_mm)
            pages.append(page)
            x, y, row_h = margin, top, 0
        page.paste(tile, (x, y))
        # the cut line runs half-way through the gap, clear of the tile's white margin
        half = gap // 2
        if boxes:
            ImageDraw.Draw(page).rectangle([x - half, y - half, x + tile.width + half,
                                            y + tile.height + half], outline=CUT_GREY, width=1)
        x += tile.width + gap
        row_h = max(row_h, tile.height)
    return pages


def render_sheets(spec: SheetSpec) -> list[Image.Image]:
    """Pages of model markers, then the corner markers (each labelled `corner N`) and the pointer
    token from a new page."""
    dictionary = get_dictionary(spec.dictionary)
    limit = dictionary.bytesList.shape[0]
    pointer = () if spec.pointer_id is None else (spec.pointer_id,)
    bad = [i for i in (*spec.ids, *spec.corner_ids, *pointer) if not 0 <= i < limit]
    if bad:
        raise ConfigError(f"marker ids {bad} are not in {spec.dictionary} (0-{limit - 1})")
    for size in (spec.size_mm, *((spec.corner_size_mm,) if spec.corner_ids else ())):
        check_cells(dictionary, size, spec.dpi)
    font = ImageFont.load_default(size=max(10, mm_px(2.8, spec.dpi)))
    name = spec.dictionary.removeprefix("DICT_")
    models = [marker_tile(dictionary, i, spec.size_mm, spec.dpi, font, f"{i}") for i in spec.ids]
    corners = [marker_tile(dictionary, i, spec.corner_size_mm, spec.dpi, font, f"corner {i}")
               for i in spec.corner_ids]
    corners += [marker_tile(dictionary, i, spec.size_mm, spec.dpi, font, f"pointer {i}") for i in pointer]
    model_title = f"Model markers {name}: black square {spec.size_mm:g} mm"
    pointer_title = f"pointer token {spec.size_mm:g} mm"
    corner_title = pointer_title.capitalize()
    if spec.corner_ids:
        corner_title = (f"Corner markers {name}: black square {spec.corner_size_mm:g} mm"
                        + (f"; {pointer_title}" if pointer else ""))
    pages = ((paged(models, spec, model_title) if models else [])
             + (paged(corners, spec, corner_title) if corners else []))
    if spec.panel_url:
        width_mm, height_mm = PAGES_MM[spec.page]
        size_px = (mm_px(width_mm, spec.dpi), mm_px(height_mm, spec.dpi))
        pages.append(panel_page(spec.panel_url, size_px, spec.dpi))
    return pages


def write_sheets(spec: SheetSpec, out: str | Path, first: Sequence[Image.Image] = ()
                 ) -> tuple[list[Path], int]:
    """Write the sheets after the pages `first` (the ring stickers': vision/sticker_sheets.py): one PDF
    (every page) or PNG files (NAME.png, NAME-2.png, ...); returns the files and the number of pages."""
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise ConfigError(f"{out}: write a .pdf or a .png")
    pages = [*first, *render_sheets(spec)]
    if not pages:
        raise ConfigError("no markers to print: give --ids or keep the corner markers")
    out.parent.mkdir(parents=True, exist_ok=True)
    if suffix == ".pdf":
        pages[0].save(out, save_all=True, append_images=pages[1:], resolution=float(spec.dpi))
        return [out], len(pages)
    paths = []
    for n, page in enumerate(pages, start=1):
        path = out if n == 1 else out.with_name(f"{out.stem}-{n}{out.suffix}")
        page.save(path, dpi=(spec.dpi, spec.dpi))
        paths.append(path)
    return paths, len(pages)


def parse_ids(text: str) -> tuple[int, ...]:
    """"10-69,80,90-92" -> ids."""
    ids: list[int] = []
    for part in filter(None, (p.strip() for p in text.split(","))):
        lo, sep, hi = part.partition("-")
        try:
            first, last = int(lo), int(hi) if sep else int(lo)
        except ValueError:
            raise ConfigError(f"--ids {text!r}: expected numbers and ranges like 10-69,80") from None
        if last < first:
            raise ConfigError(f"--ids {text!r}: range {part} runs backwards")
        ids.extend(range(first, last + 1))
    return tuple(dict.fromkeys(ids))

