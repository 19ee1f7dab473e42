// The board as SVG in board inches (y down, as in the contract): terrain, hex overlay, models, answers.
import { spots } from "./labels.js";

const NS = "http://www.w3.org/2000/svg";
const MM = 1 / 25.4;
const COLOURS = ["#56b4e9", "#e69f00", "#b0eb92", "#f324ae"];   // apart for colour-blind players (test_palette)
const TRAIT_FILL = ["impassable", "heavy_cover", "light_cover", "water", "elevated"];

export function s(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

export function players(scene) {
  return [...new Set((scene.units || []).map((u) => String(u.player)))].sort();
}

export function playerColour(scene, player) {
  const index = players(scene).indexOf(String(player));
  return COLOURS[(index < 0 ? 0 : index) % COLOURS.length];
}

export function unitOf(scene, id) { return (scene.units || []).find((u) => u.id === id); }

// Red Blob Games layout, matching table/hexgrid.py's HexLayout.
export function hexLayout(spec) {
  const size = spec.size ?? 1, flat = (spec.orientation ?? "flat") === "flat";
  const [ox, oy] = spec.origin ?? [0, 0];
  const r3 = Math.sqrt(3);
  const toBoard = ([q, r]) => flat ? [ox + size * 1.5 * q, oy + size * r3 * (r + q / 2)]
                                   : [ox + size * r3 * (q + r / 2), oy + size * 1.5 * r];
  const fractional = (x, y) => {
    const px = (x - ox) / size, py = (y - oy) / size;
    return flat ? [2 / 3 * px, -px / 3 + r3 / 3 * py] : [r3 / 3 * px - py / 3, 2 / 3 * py];
  };
  const corners = (h) => {
    const [cx, cy] = toBoard(h), start = flat ? 0 : 30;
    return [0, 1, 2, 3, 4, 5].map((i) => {
      const a = (start + 60 * i) * Math.PI / 180;
      return [cx + size * Math.cos(a), cy + size * Math.sin(a)];
    });
  };
  return { size, toBoard, fractional, corners };
}

function hexesOnBoard(layout, width, height) {
  const qs = [], rs = [];
  for (const [x, y] of [[0, 0], [width, 0], [0, height], [width, height]]) {
    const [q, r] = layout.fractional(x, y); qs.push(q); rs.push(r);
  }
  const out = [];
  for (let q = Math.floor(Math.min(...qs)) - 1; q <= Math.ceil(Math.max(...qs)) + 1; q++) {
    for (let r = Math.floor(Math.min(...rs)) - 1; r <= Math.ceil(Math.max(...rs)) + 1; r++) {
      const [x, y] = layout.toBoard([q, r]);
      if (x >= -layout.size / 2 && y >= -layout.size / 2 && x <= width + layout.size / 2
          && y <= height + layout.size / 2) out.push([q, r]);
    }
  }
  return out;
}

const points = (poly) => poly.map(([x, y]) => `${x},${y}`).join(" ");
const key = (h) => `${h[0]},${h[1]}`;

export function modelRadius(model) {
  const base = model.base || { shape: "circle", diameter_mm: 25 };
  const mm = base.shape === "circle" ? base.diameter_mm : Math.max(base.width_mm, base.depth_mm);
  return (mm || 25) * MM / 2;
}

function drawModel(group, scene, model, view, scale) {
  const unit = unitOf(scene, model.unit) || {};
  const state = model.state || "tracked";
  const classes = ["model", state];
  if ((view.selected || []).includes(model.id)) classes.push("sel");
  if (view.warnUnits?.has(model.unit)) classes.push("warn");
  const g = s("g", { class: classes.join(" "), "data-model": model.id,
                      transform: `translate(${model.x} ${model.y}) rotate(${model.heading || 0})` });
  const r = modelRadius(model);       // the base at its true size: a tap finds it within 44 px (modelsNear)
  const base = model.base || {};
  if (base.shape === "rect" || base.shape === "oval") {
    const w = base.width_mm * MM, d = base.depth_mm * MM;
    const shape = base.shape === "oval" ? s("ellipse", { rx: d / 2, ry: w / 2 })
                                        : s("rect", { x: -d / 2, y: -w / 2, width: d, height: w });
    shape.setAttribute("class", "base"); shape.setAttribute("fill", playerColour(scene, unit.player));
    g.append(shape);
  } else {
    g.append(s("circle", { class: "base", r, fill: playerColour(scene, unit.player) }));
  }
  g.append(s("line", { class: "heading", x1: 0, y1: 0, x2: r, y2: 0 }));
  g.append(s("circle", { class: "ring", r: r + 0.35 * scale, fill: "none" }));
  g.append(s("circle", { class: "wring", r: r + 0.6 * scale, fill: "none" }));
  g.append(s("title", {}, `${model.id} (${unit.name || model.unit})${state !== "tracked" ? " " + state : ""}`));
  group.append(g);
}

// Draw the whole board into `svg`. view: {selected, sight, blockers, covers, reach, warnUnits, draft}
export function drawBoard(svg, scene, view = {}) {
  const width = scene.board?.width ?? 48, height = scene.board?.height ?? 48;
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.replaceChildren();
  const scale = Math.max(width, height) / 48;           // keep marks readable on small boards too
  svg.append(s("rect", { x: 0, y: 0, width, height, fill: "#23301f" }));
  if (scene.hexgrid) drawHexes(svg, scene, view, width, height);
  for (const t of scene.terrain || []) {
    const traits = t.traits || [];
    const fill = TRAIT_FILL.find((x) => traits.includes(x)) || "plain";
    const classes = ["terrain", fill, traits.includes("difficult") ? "difficult" : ""];
    if (view.blockers?.includes(t.id)) classes.push("blocker");
    else if (view.covers?.includes(t.id)) classes.push("cover");
    svg.append(s("polygon", { class: classes.join(" "), points: points(t.polygon), "data-terrain": t.id }));
    const xs = t.polygon.map((p) => p[0]), ys = t.polygon.map((p) => p[1]);
    const cx = xs.reduce((a, v) => a + v, 0) / xs.length, cy = ys.reduce((a, v) => a + v, 0) / ys.length;
    const top = Math.min(...ys), bottom = Math.max(...ys);
    const size = view.pxPerInch ? 12 / view.pxPerInch : 1.35 * scale;
    // its middle, just inside its top or bottom edge, then just outside them (labels.js)
    svg.append(s("text", { class: "tlabel", x: cx, y: cy, "text-anchor": "middle", "font-size": size,
                           "data-label": "terrain", "data-spots": spots([[cx, cy, 0, 0], [cx, top, 0, -1],
                             [cx, bottom, 0, 1], [cx, top, 0, 1], [cx, bottom, 0, -1]]) },
               `${t.id}${t.height ? ` ${t.height}"` : ""}`));
  }
  if (view.draft?.length) {
    svg.append(s("polygon", { class: "draft", points: points(view.draft) }));
    for (const [x, y] of view.draft) svg.append(s("circle", { class: "draft-pt", cx: x, cy: y, r: 0.35 * scale }));
  }
  const models = (scene.models || []).filter((m) => typeof m.x === "number");
  const group = s("g", { class: "models" });
  for (const m of models) drawModel(group, scene, m, view, scale);
  svg.append(group);
  drawUnitLabels(svg, scene, models, view, scale);
  if (view.path?.length > 1) {
    svg.append(s("polyline", { class: "path", points: points(view.path) }));
  }
  if (view.sight?.line) {
    const [[x1, y1], [x2, y2]] = view.sight.line;
    svg.append(s("line", { class: `sight ${view.sight.visible ? "clear" : "blocked"}`, x1, y1, x2, y2 }));
  }
}

function drawHexes(svg, scene, view, width, height) {
  const layout = hexLayout(scene.hexgrid);
  const kinds = new Map((scene.hexes || []).map((h) => [key(h.hex), h]));
  const reach = new Map((view.reach || []).map((h) => [key(h.hex), h.cost]));
  const g = s("g", { class: "hexes" });
  for (const h of hexesOnBoard(layout, width, height)) {
    const info = kinds.get(key(h));
    g.append(s("polygon", { class: `hex ${info?.terrain || "clear"}`, points: points(layout.corners(h)),
                            "data-hex": key(h) }));
    if (reach.has(key(h))) g.append(s("polygon", { class: "reach", points: points(layout.corners(h)) }));
    if (info?.road) {
      const [x, y] = layout.toBoard(h);
      g.append(s("circle", { class: "road", cx: x, cy: y, r: layout.size * 0.18 }));
    }
    if (reach.has(key(h))) {
      const [x, y] = layout.toBoard(h);
      const size = Math.min(layout.size, view.pxPerInch ? 11 / view.pxPerInch : layout.size * 0.6);   // 11 px, in its hex
      g.append(s("text", { class: "tlabel cost", x, y: y + size / 3, "text-anchor": "middle", "font-size": size,
                           "data-label": "cost" },
                 String(reach.get(key(h)))));
    }
  }
  for (const side of scene.hexsides || []) {
    const [a, b] = side.between;
    const ca = layout.corners(a), cb = layout.corners(b);
    const shared = ca.filter(([x, y]) => cb.some(([u, v]) => Math.hypot(x - u, y - v) < 1e-6));
    if (shared.length === 2) {
      const [[x1, y1], [x2, y2]] = shared;
      g.append(s("line", { class: `hexside ${side.feature}`, x1, y1, x2, y2 }));
    }
  }
  svg.append(g);
}

// One label per unit, at a fixed size on screen (13 px at any zoom), beside its models: above, below,
// right or left of them, then at a corner, the first free one (labels.js places it).
function drawUnitLabels(svg, scene, models, view, scale) {
  const size = view.pxPerInch ? 13 / view.pxPerInch : 1.3 * scale;
  const byUnit = new Map();
  for (const m of models) (byUnit.get(m.unit) || byUnit.set(m.unit, []).get(m.unit)).push(m);
  for (const [unitId, ms] of byUnit) {
    const unit = unitOf(scene, unitId) || {};
    const text = `${unit.name || unitId}${unit.player != null ? ` · ${unit.player}` : ""}`;   // the player in text too
    const xs = ms.map((m) => m.x), ys = ms.map((m) => m.y);
    const pad = Math.max(...ms.map(modelRadius)) + 0.65 * scale;                        // past the rings
    const x0 = Math.min(...xs) - pad, x1 = Math.max(...xs) + pad, y0 = Math.min(...ys) - pad, y1 = Math.max(...ys) + pad;
    const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
    const picked = ms.some((m) => (view.selected || []).includes(m.id));      // placed first: beside its models
    const g = s("g", { class: "unit-label", "data-label": "unit", "data-unit": unitId, "data-first": picked || null,
                       "data-spots": spots([
      [cx, y0, 0, 1], [cx, y1, 0, -1], [x1, cy, -1, 0], [x0, cy, 1, 0],
      [x1, y0, -1, 1], [x0, y0, 1, 1], [x1, y1, -1, -1], [x0, y1, 1, -1]]) });
    g.append(s("text", { class: "ulabel", x: cx, y: y0 - 0.2 * size, "text-anchor": "middle", "font-size": size }, text));
    if (view.warnUnits?.has(unitId)) {
      const bx = cx + text.length * 0.3 * size + 0.7 * size, by = y0 - 0.2 * size;
      g.append(s("circle", { class: "badge", cx: bx, cy: by - 0.35 * size, r: 0.6 * size }));
      g.append(s("text", { class: "badge-t", x: bx, y: by, "text-anchor": "middle", "font-size": size }, "!"));
    }
    svg.append(g);
  }
}

// Board inches under a pointer event.
export function boardPoint(svg, event) {
  const p = svg.createSVGPoint();
  p.x = event.clientX; p.y = event.clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  return [q.x, q.y];
}

// Models under a fingertip at (x, y), nearest first: within `reach` inches of the centre (a 44 px target
// at the current zoom) or inside the base itself.
export function modelsNear(scene, x, y, reach) {
  return (scene.models || []).filter((m) => typeof m.x === "number")
    .map((m) => ({ m, d: Math.hypot(m.x - x, m.y - y) }))
    .filter(({ m, d }) => d <= Math.max(reach, modelRadius(m)))
    .sort((a, b) => a.d - b.d).map(({ m, d }) => ({ ...m, inside: d <= modelRadius(m) }));
}

function inside([x, y], poly) {
  let hit = false;
  for (let i = 0, j = poly.length - 1; i < poly.length; j = i++) {
    const [xi, yi] = poly[i], [xj, yj] = poly[j];
    if ((yi > y) !== (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) hit = !hit;
  }
  return hit;
}

export function terrainAt(scene, x, y) {
  return (scene.terrain || []).find((t) => inside([x, y], t.polygon));
}

function crosses([a, b], [c, d]) {
  const o = (p, q, r) => Math.sign((q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0]));
  return o(a, b, c) !== o(a, b, d) && o(c, d, a) !== o(c, d, b);
}

// Terrain pieces with cover traits that a sight line passes through (for drawing; the count is the rules').
export function coverCrossed(scene, line) {
  return (scene.terrain || []).filter((t) => {
    const traits = t.traits || [];
    if (!traits.includes("light_cover") && !traits.includes("heavy_cover")) return false;
    const p = t.polygon;
    return inside(line[0], p) || inside(line[1], p)
      || p.some((pt, i) => crosses(line, [pt, p[(i + 1) % p.length]]));
  }).map((t) => t.id);
}
