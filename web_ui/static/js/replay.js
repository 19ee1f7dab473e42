// The game replay: scrub through a game's log (this game's, or an earlier one's) and see the board after each
// event as the table showed it then (where every model stood and faced, the selection and its answers, the
// last measurement with its error bar, the warnings in force). GET /api/replay lists a game's events, GET
// /api/replay/<seq> is one board. "Back to the live board" leaves it; the live board kept following the table.
import { el, getJSON, kv } from "./api.js";
import { coverCrossed, drawBoard, hexLayout } from "./board.js";
import { drawOverlays } from "./overlays.js";
import { placeLabels } from "./labels.js";
import { drawRuler } from "./ruler.js";

const $ = (id) => document.getElementById(id);
const words = (key) => String(key ?? "").replace(/_/g, " ");
const fmt = (n) => (typeof n === "number" ? (Number.isInteger(n) ? String(n) : n.toFixed(2)) : String(n ?? "—"));
// A distance with its 95% interval as ± the half-width (docs/uncertainty.md).
const distance = (d) => `${fmt(d.distance)}${d.method === "hex" ? " hexes" : '"'}${d.interval
  ? ` ± ${((d.interval[1] - d.interval[0]) / 2).toFixed(2)}${d.method === "hex" ? " hexes" : '"'}` : ""}`;

const replay = { game: null, steps: [], index: -1, view: null, asked: 0 };
// What the step buttons step through (the "Step through" choice): every event, or only events of these kinds.
const STEPS = { all: null, measure: ["measure"], warning: ["warning", "warning_cleared", "acknowledge"],
                move: ["move"], phase: ["phase"], bookmark: ["bookmark"] };

// The index of the next event (direction 1) or the previous one (-1) of the kinds stepped through; -1 if none.
function following(direction) {
  const kinds = STEPS[$("replay-kind").value] || null;
  for (let i = replay.index + direction; i >= 0 && i < replay.steps.length; i += direction)
    if (!kinds || kinds.includes(replay.steps[i].kind)) return i;
  return -1;
}

function stepButtons() {
  const last = replay.steps.length - 1;
  $("replay-first").disabled = replay.index <= 0;
  $("replay-last").disabled = replay.index >= last;
  $("replay-prev").disabled = following(-1) < 0;
  $("replay-next").disabled = following(1) < 0;
}

// Open the replay on the event numbered `seq` (a link: #replay/<seq>, of this game or an earlier one), else
// on this game's newest event.
export async function openReplay(app, seq = null) {
  app.replay = replay;                 // for the browser tests and curious players
  $("replay-event").textContent = "Reading the game log…";
  let game = null;
  if (seq) game = await getJSON(`/api/replay/${seq}`).then((view) => view.game, () => null);
  await load(game, game ? seq : null);
}

// A game's events (this game's for none) on the scrubber, showing `seq` or the newest; a list of the
// log's games to choose from when it holds more than one.
async function load(game, seq) {
  let found;
  try {
    found = await getJSON(`/api/replay${game ? `?game=${game}` : ""}`);
  } catch (error) {
    $("replay-event").textContent = error.message;
    return;
  }
  replay.game = found.game;
  replay.steps = found.events;
  const picker = $("replay-game");
  picker.hidden = found.games.length < 2;
  picker.replaceChildren(...found.games.map((g) => el("option", { value: g.game, selected: g.game === found.game },
    `Game ${g.game} · ${words(g.ruleset)} · ${new Date(g.started * 1000).toLocaleString()}`
    + `${g.ended ? "" : " (now)"} · ${g.events} events`)));
  const slider = $("replay-slider");
  slider.max = String(Math.max(replay.steps.length - 1, 0));
  slider.disabled = replay.steps.length < 2;
  const linked = replay.steps.findIndex((step) => step.seq === seq);
  await show(linked >= 0 ? linked : replay.steps.length - 1);
}

// Show the board after the event at `index` (a later request wins over an answer that comes late).
async function show(index) {
  if (!replay.steps.length) return;
  index = Math.max(0, Math.min(index, replay.steps.length - 1));
  replay.index = index;
  const slider = $("replay-slider");
  slider.value = String(index);
  const step = replay.steps[index];
  history.replaceState(null, "", `#replay/${step.seq}`);      // a link to this event (a judge's, say)
  $("replay-pos").textContent = `Event ${index + 1} of ${replay.steps.length}`
    + `${step.ts ? ` · ${new Date(step.ts * 1000).toLocaleTimeString()}` : ""}`;
  $("replay-event").textContent = step.summary;
  slider.setAttribute("aria-valuetext", `event ${index + 1} of ${replay.steps.length}: ${step.summary}`);
  stepButtons();
  const asked = ++replay.asked;
  let view;
  try {
    view = await getJSON(`/api/replay/${step.seq}`);
  } catch (error) {
    if (asked === replay.asked) $("replay-answers").replaceChildren(el("p", {}, error.message));
    return;
  }
  if (asked !== replay.asked) return;
  replay.view = view;
  render(view);
}

function render(view) {
  const p = view.phase || {};
  const phase = words(p.phase);
  $("replay-phase").textContent = p.phase ? `${phase[0].toUpperCase()}${phase.slice(1)} phase · turn ${p.turn}${p.player != null
    ? ` · player ${p.player}` : ""}` : "";
  const open = (view.warnings || []).filter((w) => !w.acknowledged);
  if (view.scene) drawReplayBoard(view, new Set(open.flatMap((w) => w.units || [])));
  renderAnswers(view);
  $("replay-warnings").replaceChildren(...(view.warnings || []).map((w) => el("div", { class: "card warning" },
    el("p", {}, el("strong", {}, `⚠ ${words(w.kind || "warning")}: `), w.message || "",
      w.acknowledged ? el("small", {}, " (acknowledged)") : null))));
}

function drawReplayBoard(view, warnUnits) {
  const svg = $("replay-board"), scene = view.scene, sel = view.selection || {};
  const pxPerInch = svg.getBoundingClientRect().width / (scene.board?.width ?? 48) || 8;
  const ends = [sel.model, sel.target].map((id) => scene.models.find((m) => m.id === id)).filter(Boolean);
  const los = sel.los;
  const line = los?.line || (los && ends.length === 2 ? ends.map((m) => [m.x, m.y]) : null);
  const drawn = { selected: [sel.model, sel.target].filter(Boolean), warnUnits, pxPerInch,
                  sight: line ? { ...los, line } : null, blockers: los?.blocked_by || [],
                  covers: line ? coverCrossed(scene, line) : [], coverFrom: los?.cover_from || null,
                  zones: sel.deployment?.zones,
                  path: scene.hexgrid && sel.path?.path ? sel.path.path.map(hexLayout(scene.hexgrid).toBoard) : null };
  drawBoard(svg, scene, drawn);
  drawOverlays(svg, scene, drawn);
  drawRuler(svg, sel.ruler, null, pxPerInch);
  placeLabels(svg, scene.board, null, pxPerInch);
}

// The selection's answers then, and the last measurement standing (as logged, with its error bar).
function renderAnswers(view) {
  const sel = view.selection || {}, parts = [];
  if (sel.model) {
    const rows = [];
    if (sel.distance?.distance !== undefined) rows.push(["distance", distance(sel.distance)]);
    if (sel.band?.band) rows.push(["range band", `${words(sel.band.band)}${sel.band.weapon ? ` (${sel.band.weapon})` : ""}`]);
    if (sel.los) rows.push(["line of sight", sel.los.visible ? "clear" : `blocked${(sel.los.blocked_by || []).length
      ? ` by ${sel.los.blocked_by.join(", ")}` : ""}`]);
    parts.push(el("h3", {}, `Selected: ${sel.model}${sel.target ? ` → ${sel.target}` : ""}`), kv(rows));
  }
  const m = view.measure;
  if (m) {
    const a = m.answer || {};
    const rows = [];
    if (a.distance !== undefined) rows.push(["distance", distance(a)]);
    if (a.band) rows.push(["range band", words(a.band)]);
    if (a.visible !== undefined) rows.push(["line of sight", a.visible ? "clear" : "blocked"]);
    parts.push(el("h3", {}, `Measured ${words(m.question)} ${(m.args || []).join(" → ")}`,
      el("small", {}, ` (event ${replay.steps.findIndex((s) => s.seq === m.seq) + 1})`)), kv(rows),
    a.too_close_to_call ? el("p", { class: "hint close-call" }, "too close to call — measure by hand") : null);
  }
  if (sel.ruler) parts.push(el("p", {}, `Ruler: ${sel.ruler.distance.toFixed(2)}"`));
  $("replay-answers").hidden = !parts.length;
  $("replay-answers").replaceChildren(...parts.filter(Boolean));
}

export function replayControls() {
  $("replay-first").addEventListener("click", () => show(0));
  $("replay-prev").addEventListener("click", () => { const i = following(-1); if (i >= 0) show(i); });
  $("replay-next").addEventListener("click", () => { const i = following(1); if (i >= 0) show(i); });
  $("replay-kind").addEventListener("change", stepButtons);
  $("replay-last").addEventListener("click", () => show(replay.steps.length - 1));
  $("replay-slider").addEventListener("input", (event) => show(Number(event.target.value)));
  $("replay-game").addEventListener("change", (event) => load(Number(event.target.value), null));
}
