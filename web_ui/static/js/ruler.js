// The shared ruler: any point to any point (a model's centre, a board edge, or where the finger is),
// kept by the table so every phone and the LEDs show the same line (POST /api/ruler).
import { attempt, send } from "./api.js";
import { modelsNear, s } from "./board.js";
import { spots } from "./labels.js";

const STEP = 0.05;    // inches: a free point is rounded to this

// Where a tap puts a ruler end: a model under the finger (its id: the table measures from its centre),
// a board edge within the finger's reach (the edge itself), or the point, rounded.
export function rulerEnd(scene, x, y, reach) {
  const model = modelsNear(scene, x, y, reach)[0];
  if (model) return { end: model.id, at: [model.x, model.y] };
  const w = scene.board?.width ?? 48, h = scene.board?.height ?? 48;
  const snap = (v, max) => (v < reach ? 0 : v > max - reach ? max : Math.round(v / STEP) * STEP);
  const at = [snap(x, w), snap(y, h)];
  return { end: at, at };
}

// One tap in ruler mode: the first sets the start (drawn as a draft), the second sends the ruler.
export function rulerTap(app, x, y, reach) {
  const end = rulerEnd(app.state.scene, x, y, reach);
  if (!app.view.rulerStart) { app.view.rulerStart = end; return; }
  const start = app.view.rulerStart;
  app.view.rulerStart = null;
  attempt(() => send("POST", "/api/ruler", { from: start.end, to: end.end }));
}

export const clearRuler = () => attempt(() => send("POST", "/api/ruler", { from: null }), "Ruler cleared");

// The table's ruler (selection.ruler) and a started one, with the distance at its middle (12 px text).
export function drawRuler(svg, ruler, start, pxPerInch) {
  const size = 12 / (pxPerInch || 8), g = s("g", { class: "ruler" });
  if (ruler) {
    const [[x1, y1], [x2, y2]] = [ruler.from, ruler.to];
    g.append(s("line", { class: "ruler-line", x1, y1, x2, y2 }));
    for (const [cx, cy] of [ruler.from, ruler.to]) g.append(s("circle", { class: "ruler-end", cx, cy, r: size / 2 }));
    const at = (f, ay) => [x1 + f * (x2 - x1), y1 + f * (y2 - y1) - ay * size / 4, 0, ay];   // above the line, or below
    g.append(s("text", { class: "ruler-label", x: (x1 + x2) / 2, y: (y1 + y2) / 2 - size / 2, "font-size": size,
                         "text-anchor": "middle", "data-label": "ruler",
                         "data-spots": spots([0.5, 0.3, 0.7].flatMap((f) => [at(f, 1), at(f, -1)])) },
               `${ruler.distance.toFixed(2)}"`));
  }
  if (start) g.append(s("circle", { class: "ruler-end draft", cx: start.at[0], cy: start.at[1], r: size / 2 }));
  svg.append(g);
}
