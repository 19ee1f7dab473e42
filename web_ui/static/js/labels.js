// One placement pass over every label on a drawn board, so that no two overlap and none is cut at the
// board's edge. Each label is an element with data-label="<kind>" and, if it may move, data-spots: the
// places it may stand, best first, each "x y ax ay" (board inches): the label's box is put so that its
// point (ax, ay) lies at (x, y), ax -1/0/1 its left/middle/right, ay -1/0/1 its top/middle/bottom.
//
// The rule: labels are placed one by one, the more important first (PRIORITY: what a player has just
// asked for before what is always there; a selected unit's name before the others). Each takes, of its spots (tried as given, a box further out, and
// on a grid round its first one, each pushed inside what shows of the board), the one that overlaps no
// label placed before it and lies nearest its first spot, each fixed label still to place that it would
// cover (a hex's cost) counting as a label height further (a third for a selected unit's); those that may move get out of its way.
// A label with no free spot within REACH is hidden: a hex's cost under a unit's name (tapping the hex
// still says it), a terrain name under a range band's. So is the label of something off the board (or
// off the zoomed part), none of whose spots shows, and a fixed one the edge would cut. Boxes are
// measured as drawn on screen, so the rule holds for the fonts each engine draws.

// the ruler's distance, who is where, the selected unit's bands, its move costs, terrain, deployment
export const PRIORITY = ["ruler", "unit", "band", "cost", "terrain", "zone"];
const REACH = 5;     // box heights: a label never stands further than this from its first spot
const COVER = 1;     // box heights: what covering one fixed label (a hex's cost) counts as

const overlaps = (a, b, gap) => a.x0 < b.x1 + gap && b.x0 < a.x1 + gap && a.y0 < b.y1 + gap && b.y0 < a.y1 + gap;

function spotsOf(el) {
  return (el.dataset.spots || "").split(";").filter(Boolean).map((s) => s.trim().split(/\s+/).map(Number));
}

// The box `b` (as measured) moved so its point (ax, ay) is at (x, y), then pushed inside `bounds`.
function boxAt(b, [x, y, ax, ay], bounds) {
  const w = b.x1 - b.x0, h = b.y1 - b.y0;
  let x0 = x - (ax + 1) / 2 * w, y0 = y - (ay + 1) / 2 * h;
  x0 = Math.max(bounds.x0, Math.min(x0, bounds.x1 - w));
  y0 = Math.max(bounds.y0, Math.min(y0, bounds.y1 - h));
  return { x0, y0, x1: x0 + w, y1: y0 + h };
}

// Where a label may stand: its spots, each also a box further out, and a grid round its first spot
// (for a label crowded where it belongs). A label without spots stays where it is drawn.
function candidates(b, spots) {
  if (!spots.length) return [[b.x0, b.y0, -1, -1]];
  const w = b.x1 - b.x0, h = b.y1 - b.y0;
  const out = spots.flatMap(([x, y, ax, ay]) => [[x - ax * w, y - ay * h, ax, ay],
    ...(ay === 0 ? [[x, y - h, ax, 0], [x, y + h, ax, 0]] : [[x - w, y, ax, ay], [x + w, y, ax, ay]])]);
  const [x, y, ax, ay] = spots[0], around = [];
  for (let i = -4; i <= 4; i++) for (let j = -3; j <= 3; j++) around.push([x + i * w / 4, y + j * h, ax, ay]);
  return [...spots, ...out, ...around];
}

// Place the labels of `svg`, a drawing of `board` ({width, height}, inches) of which `zoom` ({x, y, w, h})
// or the whole board shows; `pxPerInch`: how big an inch is on screen (labels keep 1 px apart).
export function placeLabels(svg, { width = 48, height = 48 } = {}, zoom, pxPerInch) {
  const view = zoom ? { x0: zoom.x, y0: zoom.y, x1: zoom.x + zoom.w, y1: zoom.y + zoom.h }
    : { x0: 0, y0: 0, x1: width, y1: height };
  const rank = (el) => PRIORITY.indexOf(el.dataset.label) - (el.dataset.first ? 0.5 : 0);   // a selected unit's first
  const labels = [...svg.querySelectorAll("[data-label]")].sort((a, b) => rank(a) - rank(b));
  for (const el of labels) { el.removeAttribute("transform"); el.removeAttribute("visibility"); }
  const m = svg.getScreenCTM();
  if (!m || !m.a) return;                                            // not laid out (another tab shows)
  const measured = labels.map((el) => {      // as drawn on screen (Firefox's box holds the text's outline)
    const r = el.getBoundingClientRect();
    return { el, box: { x0: (r.left - m.e) / m.a, y0: (r.top - m.f) / m.d, x1: (r.right - m.e) / m.a,
                        y1: (r.bottom - m.f) / m.d } };
  });
  if (!measured.some(({ box }) => box.x1 > box.x0)) return;
  if (!measured.some((m) => m.box.x1 > m.box.x0)) return;            // not laid out (another tab shows)
  const gap = 1 / (pxPerInch || 8);
  const placed = [];
  measured.forEach(({ el, box }, i) => {
    const spots = spotsOf(el), within = ([x, y]) => x >= view.x0 && x <= view.x1 && y >= view.y0 && y <= view.y1;
    const inside = box.x0 >= view.x0 && box.x1 <= view.x1 && box.y0 >= view.y0 && box.y1 <= view.y1;
    if (!(spots.length ? spots.some(within) : inside)) {      // what it names is off screen, or a fixed one is cut
      el.setAttribute("visibility", "hidden"); return;
    }
    const pending = measured.slice(i + 1).filter((m) => !m.el.dataset.spots).map((m) => m.box);   // fixed
    // the free box nearest its first spot (in box heights), each fixed label it covers counting COVER
    const home = boxAt(box, spots[0] || [box.x0, box.y0, -1, -1], view), h = box.y1 - box.y0;
    const cover = el.dataset.first ? COVER / 3 : COVER;        // a selected unit's name keeps to its models
    let best = null, least = Infinity;
    candidates(box, spots).forEach((spot, k) => {
      const b = boxAt(box, spot, view);
      if (placed.some((p) => overlaps(b, p, gap))) return;
      const away = Math.hypot(b.x0 - home.x0, b.y0 - home.y0) / h;
      if (away > REACH) return;
      const score = away + cover * pending.filter((p) => overlaps(b, p, gap)).length + k * 1e-3;
      if (score < least) { best = b; least = score; }
    });
    if (!best) { el.setAttribute("visibility", "hidden"); return; }
    placed.push(best);
    const dx = best.x0 - box.x0, dy = best.y0 - box.y0;
    if (Math.abs(dx) > 1e-9 || Math.abs(dy) > 1e-9) el.setAttribute("transform", `translate(${dx} ${dy})`);
  });
}

export const spots = (list) => list.map((p) => p.map((v) => +v.toFixed(3)).join(" ")).join(";");
