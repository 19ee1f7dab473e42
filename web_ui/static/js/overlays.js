// Answers drawn over the board: deployment zones and the selected unit's range bands under the models,
// the hexes that block a sight line and what gives it cover over them. Board inches throughout.
import { hexLayout, modelRadius, playerColour, s, unitOf } from "./board.js";
import { spots } from "./labels.js";

const points = (poly) => poly.map(([x, y]) => `${x},${y}`).join(" ");
const words = (key) => String(key).replace(/_/g, " ");

// view: {zones, rings, blockHexes, coverFrom, pxPerInch}; drawn into an `svg` drawBoard has just drawn.
export function drawOverlays(svg, scene, view) {
  const under = s("g", { class: "overlays-under" });
  const size = view.pxPerInch ? 12 / view.pxPerInch : 1.2;           // labels at 12 px on screen
  drawZones(under, scene, view.zones || [], size);
  if (view.rings) drawRings(under, scene, view.rings, size);
  svg.insertBefore(under, svg.querySelector("g.models"));
  const over = s("g", { class: "overlays-over" });
  if (scene.hexgrid && view.blockHexes?.length) {
    const layout = hexLayout(scene.hexgrid);
    for (const h of view.blockHexes) over.append(s("polygon", { class: "block-hex", "data-hex": `${h[0]},${h[1]}`,
                                                                  points: points(layout.corners(h)) }));
  }
  drawCover(over, scene, view.coverFrom || []);
  svg.append(over);
}

// Each player's deployment zone (state.selection.deployment): a strip of the board or the zone's hexes
// as one shape, in the player's colour (attributes: the page's CSP allows no inline styles), the player
// named in its corner nearest the board's middle row.
function drawZones(group, scene, zones, size) {
  const layout = scene.hexgrid ? hexLayout(scene.hexgrid) : null;
  const height = scene.board?.height ?? 48;
  for (const zone of zones) {
    const colour = playerColour(scene, zone.player);
    const shapes = zone.polygon ? [zone.polygon] : layout ? (zone.hexes || []).map((h) => layout.corners(h)) : [];
    const all = shapes.flat();
    if (!all.length) continue;
    const g = s("g", { class: "zone", "data-player": zone.player });
    g.append(s("path", { class: `zone-area${zone.polygon ? " strip" : ""}`, fill: colour, stroke: colour,
                         d: shapes.map((p) => `M${points(p)}Z`).join("") }));
    const xs = all.map((p) => p[0]), ys = all.map((p) => p[1]);
    const width = scene.board?.width ?? 48, left = Math.max(0, Math.min(...xs)), right = Math.min(width, Math.max(...xs));
    const top = Math.max(0, Math.min(...ys)), bottom = Math.min(height, Math.max(...ys));
    const inTop = height - bottom < top;                                  // the edge towards the middle
    const [edge, ay] = inTop ? [top, -1] : [bottom, 1];
    const x = left + size / 2, y = inTop ? top + size : bottom - size / 3;
    g.append(s("text", { class: "zone-label", x, y, "font-size": size, fill: colour, "data-label": "zone",
                         "data-spots": spots([[x, edge, -1, ay], [(left + right) / 2, edge, 0, ay],
                                              [right - size / 2, edge, 1, ay]]) }, `Player ${zone.player} deploys here`));
    group.append(g);
  }
}

// The unit's range bands (its `bands` answer): for each band the area within its outer distance of any
// of the unit's models, measured from the centre or the base edge as the answer says; the outer band
// first, so each nearer band lies brighter over it. A group's opacity keeps overlapping models even.
function drawRings(group, scene, rings, size) {
  const models = (scene.models || []).filter((m) => (rings.answer.from || []).includes(m.id) && typeof m.x === "number");
  if (!models.length) return;
  const edge = rings.answer.measure === "edge";
  const bands = [...(rings.answer.bands || [])].sort((a, b) => b.to - a.to);
  const top = models.reduce((a, m) => (m.y < a.y ? m : a));
  for (const band of bands) {
    const g = s("g", { class: "band-area", "data-band": band.band });
    for (const m of models) {
      g.append(s("circle", { class: "band-disc", cx: m.x, cy: m.y, r: band.to + (edge ? modelRadius(m) : 0),
                             "data-model": m.id }));
    }
    group.append(g);
    // labelled just inside its edge above the unit, else below it; an edge off the board gets none
    const r = band.to + (edge ? modelRadius(top) : 0), low = models.reduce((a, m) => (m.y > a.y ? m : a));
    const rLow = band.to + (edge ? modelRadius(low) : 0);
    const width = scene.board?.width ?? 48, height = scene.board?.height ?? 48;
    if (top.y - r < 0 && low.y + rLow > height) continue;
    const along = (m, radius, down) => [0, -0.5, 0.5].map((a) =>            // the edge's top (bottom), then either side
      [m.x + radius * Math.sin(a), m.y + (down ? 1 : -1) * radius * Math.cos(a), 0, down ? 1 : -1]);
    const sides = [[top.x - r, top.y, -1, 0], [top.x + r, top.y, 1, 0]];
    const choices = [...along(top, r, false), ...along(low, rLow, true), ...sides]
      .filter(([x, y]) => x >= 0 && x <= width && y >= 0 && y <= height);
    const [x, y] = choices[0];
    group.append(s("text", { class: "band-label", x, y: y + size, "text-anchor": "middle", "font-size": size,
                             "data-label": "band", "data-spots": spots(choices) }, `${words(band.band)} ${band.to}"`));
  }
}

// What gives a sight line cover: a hexside (drawn bold along it) or a unit standing in the way (its
// models ringed).
function drawCover(group, scene, coverFrom) {
  const layout = scene.hexgrid ? hexLayout(scene.hexgrid) : null;
  for (const c of coverFrom) {
    if (c.kind === "hexside" && layout) {
      const [a, b] = c.between, ca = layout.corners(a), cb = layout.corners(b);
      const shared = ca.filter(([x, y]) => cb.some(([u, v]) => Math.hypot(x - u, y - v) < 1e-6));
      if (shared.length === 2) {
        const [[x1, y1], [x2, y2]] = shared;
        group.append(s("line", { class: "cover-side", x1, y1, x2, y2, "data-between": `${a}|${b}` }));
      }
    } else if (c.unit) {
      for (const m of (scene.models || []).filter((x) => x.unit === c.unit && typeof x.x === "number")) {
        group.append(s("circle", { class: "cover-model", cx: m.x, cy: m.y, r: modelRadius(m) + 0.5,
                                   "data-model": m.id }));
      }
    }
  }
}

// A sight answer's cover in words: "soft cover hexside between [7,3] and [8,3] (light)", "Walker (b4)".
export function coverWords(scene, coverFrom) {
  return coverFrom.map((c) => {
    if (typeof c === "string") return c;           // a terrain piece (its id, as the board labels it)
    const grade = c.cover ? ` (${c.cover})` : "";
    if (c.kind === "hexside") {
      const [a, b] = c.between;
      const same = (x, y) => x[0] === y[0] && x[1] === y[1];
      const side = (scene.hexsides || []).find((h) => (same(h.between[0], a) && same(h.between[1], b))
        || (same(h.between[0], b) && same(h.between[1], a)));
      return `${words(side?.feature || "cover")} hexside between [${a}] and [${b}]${grade}`;
    }
    if (c.unit) return `${c.kind ? `${words(c.kind)} ` : ""}${unitOf(scene, c.unit)?.name || c.unit} (${c.unit})${grade}`;
    return `${words(c.kind || "cover")}${grade}`;
  }).join("; ");
}

// Hexes named in a sight answer's `blocked_by` ("hex[2,1]", "hex:6,6").
export function blockingHexes(blockedBy) {
  return (blockedBy || []).map((b) => /^hex[[:](-?\d+),\s*(-?\d+)/.exec(String(b))).filter(Boolean)
    .map((m) => [Number(m[1]), Number(m[2])]);
}
