// Pinch to zoom, drag to pan, double-tap to zoom to a unit: the board's viewBox, in board inches.
// A tap (a press that did not move) goes to `onTap`; gestures never reach it.
const TAP_SLOP_PX = 10, DOUBLE_TAP_MS = 320, MAX_ZOOM = 8;

// The board point (inches) under the screen point (clientX, clientY).
export function boardPoint(svg, clientX, clientY) {
  const p = svg.createSVGPoint(); p.x = clientX; p.y = clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  return [q.x, q.y];
}

export function zoomable(svg, { board, onTap, onDoubleTap, onChange }) {
  const pointers = new Map();
  let gesture = null, lastTap = null;
  const full = () => ({ x: 0, y: 0, w: board().width, h: board().height });
  const zoom = { box: null };

  const clamp = (box) => {
    const f = full(), w = Math.min(f.w, Math.max(f.w / MAX_ZOOM, box.w)), h = w * f.h / f.w;
    return { w, h, x: Math.min(Math.max(box.x, 0), f.w - w), y: Math.min(Math.max(box.y, 0), f.h - h) };
  };
  const apply = (box) => {
    zoom.box = box && box.w < full().w - 1e-6 ? clamp(box) : null;
    const b = zoom.box || full();
    svg.setAttribute("viewBox", `${b.x} ${b.y} ${b.w} ${b.h}`);
    svg.classList.toggle("zoomed", Boolean(zoom.box));
  };
  const inches = (clientX, clientY) => boardPoint(svg, clientX, clientY);
  // Zoom so that board point (x, y) stays under screen point (sx, sy), with the box `w` inches wide.
  const zoomAbout = (x, y, sx, sy, w) => {
    const rect = svg.getBoundingClientRect(), f = full();
    const width = Math.min(f.w, Math.max(f.w / MAX_ZOOM, w)), height = width * f.h / f.w;
    apply({ x: x - (sx - rect.left) / rect.width * width, y: y - (sy - rect.top) / rect.height * height,
            w: width, h: height });
  };
  zoom.to = (x, y, w) => {
    const rect = svg.getBoundingClientRect();
    zoomAbout(x, y, rect.left + rect.width / 2, rect.top + rect.height / 2, w);
    onChange();
  };
  zoom.reset = () => { apply(null); onChange(); };
  zoom.restore = () => apply(zoom.box);            // after a redraw replaced the viewBox

  svg.addEventListener("pointerdown", (e) => {
    if (e.isPrimary) pointers.clear();        // a first finger down: any pointer we still hold was lost
    svg.setPointerCapture?.(e.pointerId);
    pointers.set(e.pointerId, { x: e.clientX, y: e.clientY, x0: e.clientX, y0: e.clientY });
    const box = zoom.box || full();
    if (pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const mid = [(a.x + b.x) / 2, (a.y + b.y) / 2];
      gesture = { kind: "pinch", span: Math.hypot(a.x - b.x, a.y - b.y) || 1, w: box.w, at: inches(...mid) };
    } else if (pointers.size === 1) gesture = { kind: "press", box, at: inches(e.clientX, e.clientY) };
  });
  svg.addEventListener("pointermove", (e) => {
    const p = pointers.get(e.pointerId);
    if (!p || !gesture) return;
    p.x = e.clientX; p.y = e.clientY;
    if (gesture.kind === "pinch" && pointers.size === 2) {
      const [a, b] = [...pointers.values()];
      const span = Math.hypot(a.x - b.x, a.y - b.y) || 1;
      zoomAbout(...gesture.at, (a.x + b.x) / 2, (a.y + b.y) / 2, gesture.w * gesture.span / span);
    } else if (gesture.kind !== "pinch" && Math.hypot(p.x - p.x0, p.y - p.y0) > TAP_SLOP_PX) {
      if (!zoom.box) { gesture = null; return; }                 // not zoomed: the page scrolls instead
      gesture.kind = "pan";
      const rect = svg.getBoundingClientRect(), box = gesture.box;
      apply({ ...box, x: box.x - (p.x - p.x0) / rect.width * box.w, y: box.y - (p.y - p.y0) / rect.height * box.h });
    }
  });
  const end = (e) => {
    const p = pointers.get(e.pointerId);
    pointers.delete(e.pointerId);
    if (!p || !gesture) return;
    const kind = gesture.kind;
    if (pointers.size === 0) gesture = null;
    if (kind === "pinch" || kind === "pan") { if (pointers.size === 0) onChange(); return; }
    if (e.type !== "pointerup" || Math.hypot(p.x - p.x0, p.y - p.y0) > TAP_SLOP_PX) return;
    const now = performance.now();
    const double = lastTap && now - lastTap.t < DOUBLE_TAP_MS && Math.hypot(p.x - lastTap.x, p.y - lastTap.y) < 30;
    lastTap = double ? null : { t: now, x: p.x, y: p.y };
    if (double) onDoubleTap(inches(p.x, p.y)); else onTap(e, inches(p.x, p.y));
  };
  svg.addEventListener("pointerup", end);
  svg.addEventListener("pointercancel", end);
  svg.addEventListener("wheel", (e) => {                        // a mouse or trackpad on a laptop
    e.preventDefault();
    const box = zoom.box || full();
    zoomAbout(...inches(e.clientX, e.clientY), e.clientX, e.clientY, box.w * Math.exp(e.deltaY / 400));
    onChange();
  }, { passive: false });
  return zoom;
}
