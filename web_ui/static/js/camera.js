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
                ["Calibration", calibration(status)], ["Last problem", lastProblem(status)]];
  box.replaceChildren(...rows.flatMap(([name, [mood, text]]) => [el("dt", {}, name),
    el("dd", { class: `mood-${mood}`, "data-row": name }, `${{ ok: "✓", bad: "✗", wait: "…" }[mood]} ${text}`)]));
}
