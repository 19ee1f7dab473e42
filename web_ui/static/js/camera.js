// The camera page as a player reads it: is the camera seeing the board, how many models it sees, is the
// board calibrated, the last problem in words. The raw counters stay in a folded "details" below.
import { el } from "./api.js";

function seeing(status) {
  const detail = status.camera_detail ? `: ${status.camera_detail}` : "";
  if (status.camera === "lost") return ["bad", `No: the camera was lost${detail}`];
  if (status.camera === "ended") return ["bad", `No: the camera stopped${detail}`];
  if (status.camera === "starting") return ["wait", "Not yet: the camera is starting"];
  if (status.calibration === "ok") return ["ok", "Yes"];
  if (status.calibration === "uncalibrated") {
    return ["bad", "No: it cannot find the board (the corner markers are not all in view)"];
  }
  return status.camera === "none" && !status.frames ? ["wait", "No camera on this table"]
    : ["wait", "Not yet: no picture checked"];
}

function calibration(status) {
  if (status.calibration === "ok") return ["ok", "OK: the board is found and measured"];
  if (status.calibration === "uncalibrated") return ["bad", "Not calibrated: show the camera all four corner markers"];
  return ["wait", "Not checked yet"];
}

// The lens the camera sees through: calibrated (calibrate-lens), estimated from the board, or assumed (too
// few models to see it), with how many markers showed it and how well they fitted.
function lens(status) {
  const l = status.lens;
  if (!l) return ["wait", "Not seen yet"];
  if (l.check) return ["bad", `Calibrated, but it does not match the board: ${l.check}`];
  const fit = l.markers ? `${l.markers} markers, residual ${l.residual_px.toFixed(2)} px` : "";
  const bend = l.markers ? `, k1 ${l.k1.toFixed(3)} ± ${l.k1_sd.toFixed(3)}` : "";
  if (l.source === "calibrated") {
    return ["ok", `Calibrated (calibrate-lens)${fit ? `; the board agrees (${fit})` : ""}`];
  }
  if (l.source === "estimated") {
    const frames = l.frames > 1 ? ` over ${l.frames} frames` : "";
    return ["ok", `Estimated from the board: ${fit}${frames}${bend}`];
  }
  return ["wait", "Assumed: too few models on the board to see it, so the error bars are wide (put models on the board, or run calibrate-lens)"];
}

// How sharp the camera sees (the blur measured on the corner markers' edges) and, with ring stickers, whether
// the smallest of them still read at it.
function focus(status) {
  const f = status.focus;
  if (!f) return ["wait", "Not measured yet"];
  const blur = `edges blurred ${f.blur_px.toFixed(1)} px`;
  if (f.sticker_limit_px === undefined) return ["ok", `Measured: ${blur}`];
  const reads = `${f.sticker_base_mm} mm stickers read to ${f.sticker_limit_px.toFixed(1)} px`;
  if (f.blur_px > f.sticker_limit_px) {
    return ["bad", `Out of focus: ${blur}, and ${reads}: turn the lens's focus ring until the corner markers are sharpest`];
  }
  return ["ok", `Sharp enough: ${blur} (${reads})`];
}

function modelsSeen(scene) {
  const marked = (scene.models || []).filter((m) => m.marker !== null && m.marker !== undefined);
  const seen = marked.filter((m) => m.state === "tracked");
  const missing = marked.filter((m) => m.state && m.state !== "tracked").map((m) => m.id);
  const text = `${seen.length} of ${marked.length}`;
  if (!missing.length) return [seen.length === marked.length ? "ok" : "wait", text];
  const named = missing.slice(0, 6).join(", ") + (missing.length > 6 ? ` and ${missing.length - 6} more` : "");
  return ["bad", `${text} (not seen: ${named})`];
}

function lastProblem(status) {
  const problems = [status.hardware_error, status.log !== "ok" ? status.log_detail || `game log ${status.log}` : "",
                    status.last_error].filter(Boolean);
  return problems.length ? ["bad", problems[0]] : ["ok", "None"];
}

export function renderCameraSummary(box, state) {
  const status = state.status || {};
  const rows = [["Seeing the board?", seeing(status)], ["Models seen", modelsSeen(state.scene || {})],
                ["Calibration", calibration(status)], ["Lens", lens(status)], ["Focus", focus(status)],
                ["Last problem", lastProblem(status)]];
  box.replaceChildren(...rows.flatMap(([name, [mood, text]]) => [el("dt", {}, name),
    el("dd", { class: `mood-${mood}`, "data-row": name }, `${{ ok: "✓", bad: "✗", wait: "…" }[mood]} ${text}`)]));
}
