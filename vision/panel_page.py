"""The printable page that goes with the marker sheets: a QR code of the panel's address, so a
phone at the table opens the panel by pointing its camera at it."""

from __future__ import annotations

import segno
from PIL import Image, ImageDraw, ImageFont

MM_PER_INCH = 25.4
Font = ImageFont.ImageFont | ImageFont.FreeTypeFont  # what ImageFont.load_default gives
QR_MM = 80.0  # printed side of the code with its quiet zone: a phone reads it from 20-60 cm


def panel_page(url: str, size_px: tuple[int, int], dpi: int) -> Image.Image:
    """A page of `size_px` at `dpi`: a title, the QR code of `url` (QR_MM wide) and the URL in text."""
    qr = segno.make(url, error="m", micro=False)
    modules = int(qr.symbol_size(border=4)[0])
    module_px = max(1, round(QR_MM / MM_PER_INCH * dpi / modules))
    code = Image.frombytes("L", (modules, modules), bytes(
        0 if dark else 255 for row in qr.matrix_iter(border=4) for dark in row))
    code = code.resize((modules * module_px, modules * module_px), Image.Resampling.NEAREST)
    page = Image.new("L", size_px, 255)
    draw = ImageDraw.Draw(page)
    big = ImageFont.load_default(size=max(12, round(8 / MM_PER_INCH * dpi)))
    small = ImageFont.load_default(size=max(10, round(4.5 / MM_PER_INCH * dpi)))
    top = round(25 / MM_PER_INCH * dpi)
    _centred(draw, "The table's panel", top, big, size_px[0])
    y = top + round(18 / MM_PER_INCH * dpi)
    page.paste(code, ((size_px[0] - code.width) // 2, y))
    y += code.height + round(8 / MM_PER_INCH * dpi)
    _centred(draw, url, y, big, size_px[0])
    note = "Scan with a phone on the table's network, or type the address."
    _centred(draw, note, y + round(14 / MM_PER_INCH * dpi), small, size_px[0])
    return page


def _centred(draw: ImageDraw.ImageDraw, text: str, y: int, font: Font, width: int) -> None:
    left, _, right, _ = draw.textbbox((0, 0), text, font=font)
    draw.text(((width - (right - left)) // 2, y), text, fill=0, font=font)
