"""A dispute bookmark as one self-contained HTML page a tournament judge can open anywhere, offline: the
camera pictures as data: URIs with the bases and the measured line drawn over them in SVG, the board drawn
from the stored geometry, the answer with its error ("31.26" ± 0.03""), "too close to call" in words, the
rulings in force, the time and the place in the game log. No script and nothing fetched: its own Content
Security Policy allows only its one style block (by hash) and data: images."""

from __future__ import annotations

import base64
import hashlib
from html import escape
from typing import Any

from table.errors import SceneError
from table.geometry import footprint_vertices
from table.live.bookmark_store import answer_text, too_close
from table.live.bookmark_words import answer_rows, fmt
from table.scene import parse_scene

STYLE = """
body { font: 16px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #111; background: #fff;
       max-width: 70rem; }
h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
.answer { font-size: 2.2rem; font-weight: 700; margin: .25rem 0; }
.close { font-size: 1.2rem; font-weight: 700; color: #8a3a00; border: 3px dashed #8a3a00;
         padding: .5rem .75rem; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; }
dt { font-weight: 600; }
dd { margin: 0; }
table { border-collapse: collapse; }
td, th { border: 1px solid #999; padding: .2rem .5rem; text-align: left; vertical-align: top; }
.pics { display: flex; flex-wrap: wrap; gap: 1rem; align-items: flex-start; }
figure { margin: 0; }
.pic { position: relative; display: inline-block; line-height: 0; }
.pic img { display: block; max-width: 100%; }
.pic svg { position: absolute; left: 0; top: 0; width: 100%; height: 100%; }
.base { fill: none; stroke: #00e5ff; stroke-width: 2; }
.line { fill: none; stroke: #ffb000; stroke-width: 2; }
.line.blocked { stroke: #ff6b8b; stroke-dasharray: 6 4; }
.board { width: 100%; max-width: 36rem; border: 1px solid #999; background: #f2f0e6; }
.terrain { stroke: #0008; stroke-width: .12; }
.terrain.light_cover { fill: #3f7a3a; } .terrain.heavy_cover { fill: #7a5a32; }
.terrain.impassable { fill: #5c5f66; } .terrain.water { fill: #2f5f8f; }
.terrain.elevated { fill: #8a7a4a; } .terrain.plain { fill: #4a5a44; }
.terrain.difficult { stroke-dasharray: .5 .3; stroke: #d9c38a; }
.tlabel { font-size: 1.35px; fill: #f2eee6; paint-order: stroke; stroke: #0009; stroke-width: .15em;
          text-anchor: middle; }
.model { fill: #ccc; stroke: #333; stroke-width: .08; }
.involved { fill: #00b8d4; stroke: #004d57; stroke-width: .12; }
.measured { stroke: #222; stroke-width: .25; stroke-linecap: round; }
.measured.blocked { stroke: #d0103a; stroke-dasharray: .6 .4; }
.label { font-size: 1.1px; }
figcaption { font-size: .9rem; color: #444; margin-top: .3rem; }
"""
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode("utf-8")).digest()).decode("ascii")
POLICY = (f"default-src 'none'; img-src data:; style-src 'sha256-{STYLE_HASH}'; base-uri 'none'; "
          "form-action 'none'")


def _points(points: list[list[float]]) -> str:
    return " ".join(f"{x:.2f},{y:.2f}" for x, y in points)


def _value(value: Any) -> str:
    return fmt(value)


TRAIT_FILL = ("impassable", "heavy_cover", "light_cover", "water", "elevated")   # as the panel's board.js


def sight(measurement: dict[str, Any]) -> str:
    """How the measured line is drawn, as the panel draws a sight line: solid when clear, dashed when
    blocked ("" when no sight line was asked)."""
    los = measurement.get("answers", {}).get("los")
    if not isinstance(los, dict) or "visible" not in los:
        return ""
    return "clear" if los["visible"] else "blocked"


def _terrain(piece: dict[str, Any]) -> str:
    """A terrain piece coloured by its kind and labelled with its id and height, as on the panel."""
    traits = piece.get("traits", [])
    kind = next((t for t in TRAIT_FILL if t in traits), "plain")
    classes = " ".join(["terrain", kind, *(["difficult"] if "difficult" in traits else [])])
    xs, ys = [p[0] for p in piece["polygon"]], [p[1] for p in piece["polygon"]]
    height = f' {piece["height"]:g}"' if piece.get("height") else ""
    return (f'<polygon class="{classes}" data-terrain="{escape(piece["id"])}" '
            f'points="{_points(piece["polygon"])}"/>'
            f'<text class="tlabel" x="{sum(xs) / len(xs):.2f}" y="{sum(ys) / len(ys):.2f}">'
            f'{escape(piece["id"])}{escape(height)}</text>')


def _rows(pairs: list[tuple[str, Any]]) -> str:
    return "".join(f"<dt>{escape(k)}</dt><dd>{escape(_value(v))}</dd>" for k, v in pairs)


def _picture(picture: dict[str, Any], style: str) -> str:
    """A camera picture with its overlay in SVG over it (the SVG shares the picture's pixel frame)."""
    w, h = picture["width"], picture["height"]
    overlay = picture["overlay"]
    shapes = "".join(f'<polygon class="base" points="{_points(b["outline"])}"/>' for b in overlay["bases"])
    if overlay.get("line"):
        shapes += f'<polyline class="line {style}" points="{_points(overlay["line"])}"/>'
    what = f"around {picture['model']}" if picture["kind"] == "crop" else "the whole frame, low resolution"
    alt = f"camera picture {what}"
    return (f'<figure><div class="pic"><img src="data:image/jpeg;base64,{picture["jpeg"]}" width="{w}" '
            f'height="{h}" alt="{escape(alt)}"><svg viewBox="0 0 {w} {h}" preserveAspectRatio="none" '
            f'aria-hidden="true">{shapes}</svg></div><figcaption>{escape(what)} ({w}x{h} px, frame pixels '
            f'{escape(_value(picture["box"]))})</figcaption></figure>')


def _board(document: dict[str, Any]) -> str:
    """The board from the stored geometry: terrain, every base, the models involved and the measured line."""
    try:
        scene = parse_scene(document["scene"], "bookmark scene")
    except SceneError as exc:
        return f"<p>The board cannot be drawn: {escape(str(exc))}</p>"
    involved = set(document["measurement"].get("models", []))
    parts = [_terrain(t) for t in document["scene"].get("terrain", [])]
    for model in scene.models:
        kind = "involved" if model.id in involved else "model"
        parts.append(f'<polygon class="{kind}" points="{_points(footprint_vertices(model).tolist())}"/>')
        if model.id in involved:
            x, y = model.position
            parts.append(f'<text class="label" x="{x + 0.9:.2f}" y="{y - 0.9:.2f}">{escape(model.id)}</text>')
    (x0, y0), (x1, y1) = document["measurement"]["line"]
    style = sight(document["measurement"])
    parts.append(f'<line class="measured {style}" x1="{x0}" y1="{y0}" x2="{x1}" y2="{y1}"/>')
    w, h = scene.board.width, scene.board.height
    return (f'<svg class="board" viewBox="0 0 {w} {h}" role="img" '
            f'aria-label="the board, {w:g} by {h:g} inches">{"".join(parts)}</svg>')


def _close_call(measurement: dict[str, Any]) -> str:
    if not too_close(measurement):
        return ""
    could: dict[str, list[Any]] = {}
    for answer in measurement["answers"].values():
        if isinstance(answer, dict) and answer.get("too_close_to_call"):
            could.update(answer.get("could_be") or {})
    either = "; ".join(f"{k}: {' or '.join(str(v) for v in vs)}" for k, vs in could.items())
    return (f'<p class="close" id="too-close">Too close to call: within the camera\'s error the answer '
            f'could go either way{f" ({escape(either)})" if either else ""}. Measure by hand.</p>')


def page(document: dict[str, Any]) -> str:
    """The bookmark's evidence (a `smarttable-bookmark/1` document with its `log` place) as an HTML page."""
    m = document["measurement"]
    between = " → ".join(_value(x) for x in m["between"])
    log = document.get("log") or {}
    seq = log.get("seq")
    facts = [("taken", document["time_text"]), ("game", document["game"]),
             ("game log", f"event {seq}" if seq is not None else "not in the log yet"),
             ("rule system", document["ruleset"]),
             ("turn and phase", f"turn {document['phase'].get('turn')}, {document['phase'].get('phase')}"),
             ("camera", (f"frame {document['camera']['frame']}, {document['camera']['width']}x"
                         f"{document['camera']['height']} px, calibration error "
                         f"{document['camera']['reprojection_error_px']} px")
              if document["camera"].get("frame") is not None else "no camera frame")]
    sigmas = [(f"{x['id']} position", f'± {x["sigma"]}" (1 sd), heading ± {x.get("heading_sigma", 0)}°')
              for x in document["scene"].get("models", []) if x["id"] in m.get("models", []) and "sigma" in x]
    answers = "".join(f"<tr><th>{escape(q)}</th><td>{escape(a)}</td></tr>"
                      for q, a in answer_rows(m, document["scene"]))
    rulings = "".join(f"<tr><th>{escape(k)}</th><td>{escape(_value(v))}</td></tr>"
                      for k, v in document["rulings"].items()) or "<tr><td>defaults</td></tr>"
    pictures = ("".join(_picture(p, sight(m)) for p in document.get("pictures", []))
                or "<p>No camera picture was available.</p>")
    title = f"Bookmark {document['id']}: {m['question']} {between}"
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{POLICY}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{STYLE}</style></head>
<body>
<h1>{escape(title)}</h1>
<p class="answer" id="answer">{escape(answer_text(m))}</p>
{_close_call(m)}
<dl class="facts">{_rows(facts + sigmas)}</dl>
<h2>Answers</h2><table id="answers">{answers}</table>
<h2>Camera</h2><div class="pics">{pictures}</div>
<h2>Board</h2>{_board(document)}
<h2>Rulings in force</h2><table id="rulings">{rulings}</table>
</body></html>
"""
