// The sandbox table's hand (`smarttable run --sandbox`): what a player does with miniatures on a real table,
// done on the screen. A model is dragged to a new place; a new marker is put down where the board is tapped
// next. Either way the marker goes onto the sandbox's board (PUT /api/sandbox/markers/<id>) and the camera
// sees it there, as it would a miniature put down by hand.
import { attempt, send } from "./api.js";
import { boardPoint } from "./zoom.js";

const DRAG_SLOP_PX = 10;
const $ = (id) => document.getElementById(id);
const round = (v) => Math.round(v * 100) / 100;

const put = (marker, x, y, heading) =>
  attempt(() => send("PUT", `/api/sandbox/markers/${marker}`, { x: round(x), y: round(y), heading }),
          `Marker ${marker} put down`);

// The next marker id no model and no unassigned marker has (from 10: 0-3 are the board's corners).
function freeMarker(state) {
  const used = new Set([...state.scene.models.map((m) => m.marker), ...(state.status.unassigned || [])
    .map((u) => u.marker)]);
  let id = 10;
  while (used.has(id)) id += 1;
  return id;
}

// Shows the sandbox's tools on a sandbox table (and hides them on any other).
export function renderSandbox(app) {
  const on = Boolean(app.state?.status?.sandbox), form = $("sandbox-hand");
  document.body.classList.toggle("sandbox", on);
  form.hidden = !on;
  if (on && document.activeElement !== form.marker && app.view.putMarker == null)
    form.marker.value = String(freeMarker(app.state));
}

// A board tap while a marker waits to be put down puts it there (true: the tap is taken).
export function sandboxTap(app, x, y) {
  if (app.view.putMarker == null) return false;
  const marker = app.view.putMarker;
  app.view.putMarker = null;
  $("sandbox-text").textContent = "";
  put(marker, x, y, -90);                     // as printed, upright: facing up the board
  return true;
}

export function sandboxHand(app, svg, redraw) {
  const form = $("sandbox-hand");
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    app.view.putMarker = Number(form.marker.value);
    $("sandbox-text").textContent = `Tap the board where marker ${app.view.putMarker} goes.`;
  });
  // A press on a model that then moves is a drag (the zoomable board sees neither the moves nor the lift).
  let drag = null;
  svg.addEventListener("pointerdown", (e) => {
    drag = null;
    if (!app.state?.status?.sandbox || !e.isPrimary) return;
    const id = e.target.closest?.("[data-model]")?.dataset.model;
    const model = id && app.state.scene.models.find((m) => m.id === id && m.marker != null && m.x != null);
    if (model) drag = { model, pointer: e.pointerId, x0: e.clientX, y0: e.clientY, moved: false };
  }, true);
  svg.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    if (!drag.moved && Math.hypot(e.clientX - drag.x0, e.clientY - drag.y0) <= DRAG_SLOP_PX) return;
    drag.moved = true;
    e.stopPropagation();
    const [x, y] = boardPoint(svg, e.clientX, e.clientY), { model } = drag;
    svg.querySelector(`[data-model="${CSS.escape(model.id)}"]`)
      ?.setAttribute("transform", `translate(${x} ${y}) rotate(${model.heading || 0})`);
  }, true);
  const drop = (e) => {
    if (!drag || e.pointerId !== drag.pointer) return;
    const { model, moved } = drag;
    drag = null;
    if (!moved) return;                       // a tap: the board's own (pick, measure)
    e.stopPropagation();
    if (e.type !== "pointerup") return redraw();
    const [x, y] = boardPoint(svg, e.clientX, e.clientY);
    put(model.marker, x, y, model.heading || 0).then((done) => { if (!done) redraw(); });
  };
  svg.addEventListener("pointerup", drop, true);
  svg.addEventListener("pointercancel", drop, true);
}
