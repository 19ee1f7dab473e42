// The panel: live state over SSE, the board with tap-to-measure, the phase bar, and the other views.
import { attempt, confirmed, el, getJSON, kv, send } from "./api.js";
import { coverCrossed, drawBoard, hexLayout, modelsNear, playerColour, terrainAt, unitOf }
  from "./board.js";
import { renderDice } from "./dice.js";
import { refreshLog } from "./log.js";
import { bookmarkButton, refreshBookmarks, takeBookmark } from "./bookmarks.js";
import { renderSetup, setupForms, showSetup } from "./setup.js";
import { unitFacts, renderVictory } from "./cards.js";
import { blockingHexes, coverWords, drawOverlays } from "./overlays.js";
import { openReplay, replayControls } from "./replay.js";
import { placeLabels } from "./labels.js";
import { clearRuler, drawRuler, rulerTap } from "./ruler.js";
import { connect } from "./live.js";
import { zoomable } from "./zoom.js";
import { renderSandbox, sandboxHand, sandboxTap } from "./sandbox.js";

const $ = (id) => document.getElementById(id);
const words = (key) => String(key).replace(/_/g, " ");
const app = { state: null, seq: -1, ruleset: null, rules: null, game: null, questions: [], picks: [], unit: null,
              view: {}, gaps: 0, card: null, online: false };
window.smarttable = app;   // for the browser tests and curious players

// ------------------------------------------------------------------ the rule system's declaration
// What the table's rule system declares (GET /api/rulesets): its dice forms, and the panel module of a
// system that keeps a live game (GET /api/rulesets/<name>/panel.js: render(app, box), tap(app, hex)).
async function loadRules(name) {
  const found = (await getJSON("/api/rulesets")).rulesets.find((r) => r.name === name) || null;
  if (app.ruleset !== name) return;
  app.rules = found;
  app.game = found?.panel ? await import(`/api/rulesets/${name}/panel.js`) : null;
  renderDice(app);
  renderGame();
}

function renderGame() {
  const box = $("game");
  if (app.game) app.game.render(app, box); else box.hidden = true;
}

// ------------------------------------------------------------------ live state
function apply(state) {
  if (app.seq >= 0 && state.seq > app.seq + 1) app.gaps += 1;
  app.state = state; app.seq = state.seq;
  document.body.dataset.seq = String(state.seq);
  if (state.ruleset !== app.ruleset) {
    app.ruleset = state.ruleset;
    getJSON("/api/questions").then((q) => {
      app.questions = q.questions;
      if (app.card) { app.card.inputs = null; refreshCard(); }     // a card opened before they came: ask again
      refreshVictory();
    }).catch(() => { app.questions = []; });
    loadRules(state.ruleset);
  }
  renderBar(state);
  renderSandbox(app);
  renderLogBanner(state.status || {});
  renderWarnings(state);
  renderUnits(state);
  renderTableSelection(state.selection || {});
  renderGame();
  redraw();
  renderSetup(app);
  refreshCard();
  refreshVictory();
  if (location.hash.startsWith("#log")) { refreshLog(); refreshBookmarks(); }
  keepClearOfTop();
}

// The sticky header grows with its warnings: what is scrolled into view keeps clear of it (panel.css's
// scroll-padding-top). Set as soon as a state changes it, not only when the ResizeObserver reports a new
// size at the next rendering: a scroll in between (a tap, a focused field) put what it showed under the
// header, and nothing moved it out again (WebKit, a loaded machine).
function keepClearOfTop() {
  document.documentElement.style.setProperty("--top-h", `${Math.ceil($("top").getBoundingClientRect().height)}px`);
}

// What an open card's answers depend on: where the models stand, the terrain, the rulings, the phase.
function answerInputs(state) {
  const s = state.scene;
  return JSON.stringify([s.models, s.terrain, s.hexes, s.hexsides, s.units, state.ruleset,
                         state.status?.rulings, state.phase]);
}

// The open card (a measurement or a unit) asked again when its inputs changed, so it never goes stale; the
// old answer, its sight line included, stays on screen until the new one replaces it.
function refreshCard() {
  const card = app.card;
  if (!card || card.inputs === answerInputs(app.state)) return;
  if (card.kind === "measure") measure(card.a, card.b);
  else if (card.kind === "unit") unitInfo(card.unit, card.model);
}

// The victory tracker, asked again when what it depends on changed (a rule system with `victory`).
function refreshVictory() {
  const inputs = answerInputs(app.state);
  if (!has("victory")) { app.view.victoryInputs = null; return renderVictory($("victory"), null); }
  if (app.view.victoryInputs === inputs) return;
  app.view.victoryInputs = inputs;
  ask("victory").then((answer) => { if (app.view.victoryInputs === inputs) renderVictory($("victory"), answer); },
    () => renderVictory($("victory"), null));
}

function renderBar(state) {
  const p = state.phase || {};
  const phase = p.phase ? p.phase[0].toUpperCase() + p.phase.slice(1) : "—";
  $("turn-text").textContent = phase;
  $("whose").textContent = `Turn ${p.turn ?? "—"}${p.player != null ? ` · Player ${p.player}` : ""}`;
  $("whose").style.color = p.player != null ? playerColour(state.scene, p.player) : "";
}

// The game log refused a write (full disk, lock) or was recovered: every phone says so until it is fixed.
function renderLogBanner(status) {
  const banner = $("log-banner");
  const shown = status.log === "fault" || status.log === "recovered";
  banner.hidden = !shown;
  banner.dataset.log = status.log || "ok";
  banner.textContent = !shown ? "" : status.log === "fault"
    ? `Changes are NOT being saved: ${status.log_detail}` : `Game log recovered: ${status.log_detail}`;
}

// Open warnings: a card each on the board view, and a new one also as a banner at the top of the screen
// that stays until acknowledged, announced to screen readers, with a buzz where the phone allows.
function renderWarnings(state) {
  const open = (state.warnings || []).filter((w) => !w.acknowledged);
  app.view.warnUnits = new Set(open.flatMap((w) => w.units || []));
  const acknowledge = (w) => el("button", { type: "button", class: "changes", on: { click: () => attempt(() =>
    send("POST", `/api/warnings/${encodeURIComponent(w.id)}/acknowledge`), "Acknowledged") } }, "Acknowledge");
  const text = (w) => el("p", {}, el("strong", {}, `⚠ ${words(w.kind || "warning")}: `), w.message || "");
  $("warnings").replaceChildren(...open.map((w) => el("div", { class: "card warning" }, text(w), acknowledge(w))));
  const known = app.view.warningIds ?? new Set(open.map((w) => w.id));   // the first state: no buzz for old ones
  const fresh = open.filter((w) => !known.has(w.id));
  app.view.warningIds = new Set(open.map((w) => w.id));
  if (fresh.length) navigator.vibrate?.([120, 60, 120]);
  $("alerts").replaceChildren(...open.filter((w) => app.view.alerted?.has(w.id) || fresh.includes(w))
    .map((w) => el("div", { class: "alert", "data-warning": w.id }, text(w), acknowledge(w))));
  app.view.alerted = new Set([...(app.view.alerted || []), ...fresh.map((w) => w.id)]
    .filter((id) => app.view.warningIds.has(id)));
}

// What the table itself shows (pointer token or buttons), so the phone agrees with the LEDs.
function renderTableSelection(sel) {
  const box = $("table-sel");
  box.hidden = !sel.model;
  if (!sel.model) return;
  const parts = [`On the table: ${sel.model}`];
  if (sel.target) parts.push(`→ ${sel.target}`);
  if (sel.distance?.distance !== undefined) parts.push(`· ${fmt(sel.distance.distance)}"`);
  if (sel.band?.band) parts.push(`· ${sel.band.band.replace(/_/g, " ")}`);
  if (sel.los) parts.push(sel.los.visible ? "· in sight" : `· blocked${(sel.los.blocked_by || []).length
    ? " by " + sel.los.blocked_by.join(", ") : ""}`);
  if (sel.weapon) parts.push(`· bands of ${sel.weapon}`);
  const weapons = sel.weapons || [];
  const next = weapons[(weapons.indexOf(sel.weapon) + 1) % weapons.length];
  box.replaceChildren(parts.join(" "), ...(weapons.length > 1 ? [" ", el("button", {
    type: "button", id: "next-weapon", on: { click: () => attempt(() =>
      send("POST", "/api/weapon", { weapon: next }), `Showing ${next}`) } }, `Show ${next}`)] : []));
}

// Units as chips, and every model in a list a keyboard or a screen reader can reach, beside the drawing.
function renderUnits(state) {
  const scene = state.scene;
  $("units").replaceChildren(...(scene.units || []).map((u) => el("button", {
    type: "button", class: `chip${app.unit === u.id && !app.picks.length ? " sel" : ""}`,
    style: `--c:${playerColour(scene, u.player)}`, "aria-pressed": String(app.unit === u.id && !app.picks.length),
    on: { click: () => pickUnit(u.id) } }, `${u.name || u.id} · ${u.player}`)));
  if (document.activeElement?.closest("#model-list")) return;      // don't rebuild under the keyboard
  $("model-list").replaceChildren(...(scene.units || []).map((u) => el("li", {}, `${u.name || u.id} (player ${u.player})`,
    el("ul", {}, (scene.models || []).filter((m) => m.unit === u.id).map((m) => el("li", {}, el("button", {
      type: "button", class: "link", "aria-pressed": String(app.picks.includes(m.id)),
      on: { click: () => pickModel(m) } }, `${m.id}${m.state && m.state !== "tracked" ? ` (${m.state})` : ""}`,
      typeof m.x === "number" ? ` at ${fmt(m.x)}, ${fmt(m.y)}` : "")))))));
}

const FINGER_PX = 22;        // half of a 44 px tap target

function pxPerInch() {
  const svg = $("board"), width = app.state?.scene.board?.width ?? 48;
  return svg.getBoundingClientRect().width / (app.zoom?.box?.w ?? width) || 8;
}

function redraw() {
  if (!app.state) return;
  const view = { ...app.view, selected: app.picks, pxPerInch: pxPerInch(),
                 zones: app.state.selection?.deployment?.zones };
  drawBoard($("board"), app.state.scene, view);
  drawOverlays($("board"), app.state.scene, view);
  drawRuler($("board"), app.state.selection?.ruler, app.view.rulerStart, view.pxPerInch);
  renderRulerBar();
  app.zoom.restore();
  placeLabels($("board"), app.state.scene.board, app.zoom.box, view.pxPerInch);
  $("zoom-reset").hidden = !app.zoom.box;
}

// Double tap: zoom to the unit under the finger (its models and a margin), or back to the whole board.
function zoomToUnitAt([x, y]) {
  const scene = app.state?.scene;
  const model = scene && modelsNear(scene, x, y, FINGER_PX / pxPerInch())[0];
  if (!model) return app.zoom.reset();
  const ms = scene.models.filter((m) => m.unit === model.unit && typeof m.x === "number");
  const xs = ms.map((m) => m.x), ys = ms.map((m) => m.y);
  const span = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
  app.zoom.to((Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2,
              Math.max(span + 8, 10));
}

// Several models under the finger: ask which one, with buttons big enough to hit.
function choose(models, then) {
  const scene = app.state.scene;
  showInfo([el("h3", {}, "Which model?"), el("div", { class: "chooser" }, models.map((m) => el("button", {
    type: "button", style: `--c:${playerColour(scene, unitOf(scene, m.unit)?.player)}`,
    on: { click: () => then(m) } }, `${m.id}`, el("small", {}, ` ${unitOf(scene, m.unit)?.name || m.unit}`))))]);
}

// ------------------------------------------------------------------ tap to measure
const has = (q) => app.questions.includes(q);
const ask = (q, ...args) => getJSON(`/api/query/${q}?` + args.map((a) => `arg=${encodeURIComponent(a)}`).join("&"))
  .then((r) => r.answer);

// The ruler's line under the board: what it measures, and the buttons to start one or take it away.
function renderRulerBar() {
  const ruler = app.state?.selection?.ruler;
  $("ruler-mode").setAttribute("aria-pressed", String(Boolean(app.rulerMode)));
  $("ruler-mode").textContent = app.rulerMode ? (app.view.rulerStart ? "Tap the other end" : "Tap the first end")
    : "Ruler";
  $("ruler-text").textContent = ruler ? `Ruler: ${ruler.distance.toFixed(2)}"` : "";
  $("ruler-clear").hidden = !ruler;
  $("ruler-bookmark").hidden = !ruler;
}

function onBoardTap(x, y) {
  if (!app.state || sandboxTap(app, x, y)) return;
  const scene = app.state.scene;
  if (app.rulerMode) {
    rulerTap(app, x, y, FINGER_PX / pxPerInch());
    if (!app.view.rulerStart) app.rulerMode = false;              // both ends given: sent to the table
    return redraw();
  }
  if (scene.hexgrid && app.game?.tap(app, cubeRound(...hexLayout(scene.hexgrid).fractional(x, y)))) return;
  const near = modelsNear(scene, x, y, FINGER_PX / pxPerInch());
  const inside = near.filter((m) => m.inside);
  if (inside.length === 1 || near.length === 1) return pickModel(inside[0] || near[0]);
  if (near.length > 1) return choose(near, pickModel);
  {
    if (app.unit && scene.hexgrid && app.view.reach) return showPath(x, y);
    const mover = app.picks.length === 1 && scene.models.find((m) => m.id === app.picks[0]);
    if (mover && has("move") && app.rules?.orders?.length) return checkMove(mover, x, y);
    const piece = terrainAt(scene, x, y);
    app.picks = []; app.unit = null; app.view.reach = app.view.path = app.view.rings = null;
    clearSight();
    showInfo(piece ? [el("h3", {}, `Terrain ${piece.id}`), kv([["height", `${piece.height ?? 0}"`],
      ["traits", (piece.traits || []).join(", ") || "none"]])] : null);
    return redraw();
  }
}

function pickModel(model) {
  if (app.picks.length === 1 && app.picks[0] !== model.id) {
    app.picks = [app.picks[0], model.id];
    app.view.rings = null;                          // the first model's unit card, and its range bands, are gone
    redraw();
    return measure(app.picks[0], model.id);
  }
  if (app.picks.length === 1 && app.picks[0] === model.id) {
    app.picks = []; app.unit = null; showInfo(null); app.view.reach = app.view.path = app.view.rings = null;
    return redraw();
  }
  app.picks = [model.id];
  clearSight();
  redraw();
  unitInfo(model.unit, model.id);
}

function pickUnit(unitId) {
  app.picks = []; clearSight();
  unitInfo(unitId, null);
}

// No sight line, blockers or cover drawn (the card that showed them is gone or being asked again).
function clearSight() {
  app.view.sight = null; app.view.blockers = app.view.covers = app.view.blockHexes = app.view.coverFrom = null;
}

// The info card; `card` is what it answers (re-asked when its inputs change), none for anything else
// shown there (a chooser, a terrain piece, a path), so no later refresh puts an older card back over it.
function showInfo(children, card = null) {
  app.card = children ? card : null;
  $("info").hidden = !children;
  $("hint").hidden = Boolean(children);
  if (children) $("info").replaceChildren(...children.filter((c) => c !== null && c !== undefined));   // no "null" text
}

const fmt = (n) => (typeof n === "number" ? (Number.isInteger(n) ? String(n) : n.toFixed(2)) : String(n ?? "—"));
// An answer or why there is none; `lost`: the table did not answer (live.js, api.js), not a refusal.
const settle = (p) => p.then((v) => ({ v }), (e) => ({ e: e.message, lost: Boolean(e.connection) }));

const SIGHT_SHOWN = new Set(["from", "to", "visible", "cover", "blocked_by", "line", "cover_from", "margin",
  "too_close_to_call", "could_be"]);
// Any other fact a rule system's sight answer carries (concealment, elevation, cover hexsides...), in words.
function sightFacts(answer) {
  return Object.entries(answer).filter(([k]) => !SIGHT_SHOWN.has(k) && k !== "hexes").map(([k, v]) =>
    [words(k), typeof v === "boolean" ? (v ? "yes" : "no") : Array.isArray(v)
      ? (v.length ? v.map((x) => (Array.isArray(x) ? `[${x}]` : typeof x === "object" ? JSON.stringify(x) : x)).join(", ")
        : "none") : typeof v === "object" && v !== null ? JSON.stringify(v) : fmt(v)]);
}

// A question the rule system declines for these two (no range bands in a hex game...): a dash, the reason on tap.
const declined = (reason) => el("details", { class: "declined" }, el("summary", {}, "—"), el("small", {}, reason));

// How sure (docs/uncertainty.md): the 95% interval's half-width, and "too close to call" when a rule's
// threshold lies inside the error.
const plusMinus = (d, unit) => (d.interval ? ` ± ${((d.interval[1] - d.interval[0]) / 2).toFixed(2)}${unit}` : "");
const closeCall = (answers) => (answers.some((x) => x.v?.too_close_to_call)
  ? el("p", { class: "hint close-call", id: "too-close", role: "status" }, "too close to call — measure by hand")
  : null);

let measured = 0;       // measure()'s calls so far: a charge answer older than the one shown is dropped
let measureShown = 0;   // the measure() call whose answer the card shows

async function measure(a, b) {
  const scene = app.state.scene;
  app.card = { kind: "measure", a, b, inputs: answerInputs(app.state) };
  const asking = ++measured, pair = `${a}|${b}`;
  const asked = ["distance", "band", "los", "arc"];
  const unitOfModel = (id) => scene.models.find((m) => m.id === id)?.unit;
  const [ua, ub] = [unitOfModel(a), unitOfModel(b)];
  const enemy = ua && ub && unitOf(scene, ua)?.player !== unitOf(scene, ub)?.player;
  const charging = has("charge") && enemy ? settle(ask("charge", ua, ub)) : Promise.resolve(null);
  // a charge can take a while: the card shows first, the charge when it comes, into this card or a newer one
  // of the same two (which shows the last charge answer until its own comes)
  charging.then((r) => {
    if (!r || app.card?.kind !== "measure" || `${app.card.a}|${app.card.b}` !== pair) return;
    if (app.view.charge?.pair === pair && app.view.charge.asking > asking) return;
    app.view.charge = { pair, asking, text: r.v ? chargeText(r.v) : "—" };
    const row = $("charge");
    if (row) row.textContent = app.view.charge.text;
  });
  const [distance, band, los, arc] = await Promise.all(asked.map((q) =>
    has(q) ? settle(ask(q, a, b)) : Promise.resolve({ e: null })));
  // Tapped on meanwhile: dropped. Asked again (the models moved): shown unless a newer answer is, so a table
  // whose state changes faster than it answers still shows an answer, replaced by the newer one when it comes.
  const current = app.card;
  if (app.picks[1] !== b || current?.kind !== "measure" || current.a !== a || current.b !== b
      || asking < measureShown) return;
  measureShown = asking;
  const d = distance.v;
  const unitA = unitOf(scene, scene.models.find((m) => m.id === a)?.unit) || {};
  const rows = [];
  if (band.v) rows.push(["range band", `${words(band.v.band)}${band.v.weapon ? ` (${band.v.weapon})` : ""}`]);
  else if (band.e) rows.push(["range band", declined(band.e)]);
  if (arc.v) rows.push(["arc", `${arc.v.in_arc ? "in" : "outside"} the ${arc.v.arc}° arc (${fmt(arc.v.angle)}° off facing)`]);
  const shown = app.view.charge?.pair === pair ? app.view.charge.text : "working it out…";   // the last answer
  const chargeRow = has("charge") && enemy ? el("dd", { id: "charge" }, shown) : null;
  if (chargeRow) rows.push(["charge", chargeRow]);
  clearSight();                                   // the old line goes as the new answer comes
  if (los.v) {
    const cover = los.v.cover || {};
    rows.push(["line of sight", sightWords(los.v)]);
    if ((los.v.blocked_by || []).length) rows.push(["blocked by", los.v.blocked_by.join(", ")]);
    rows.push(["cover", `${cover.light ?? 0} light · ${cover.heavy ?? 0} heavy`]);
    if ((los.v.cover_from || []).length) rows.push(["cover from", coverWords(scene, los.v.cover_from)]);
    rows.push(...sightFacts(los.v));
    const ends = [a, b].map((id) => scene.models.find((m) => m.id === id)).filter(Boolean);
    app.view.sight = { ...los.v, line: los.v.line || (ends.length === 2 ? ends.map((m) => [m.x, m.y]) : null) };
    app.view.blockers = los.v.blocked_by || [];
    app.view.covers = app.view.sight.line ? coverCrossed(scene, app.view.sight.line) : [];
    app.view.blockHexes = scene.hexgrid ? blockingHexes(los.v.blocked_by) : null;
    app.view.coverFrom = los.v.cover_from || null;
  } else if (los.e) rows.push(["line of sight", declined(los.e)]);
  redraw();
  const unit = d?.method === "hex" ? " hexes" : '"';
  showInfo([
    el("h3", {}, `${a} → ${b}`, unitA.name ? el("small", {}, ` (${unitA.name})`) : null),
    el("div", { class: "big", id: "distance" }, d ? `${fmt(d.distance)}${unit}${plusMinus(d, unit)}` : distance.e),
    closeCall([distance, band, los, arc]),
    d ? el("div", { class: "hint" }, `measured ${d.method === "edge" ? "edge to edge" : d.method === "hex"
      ? "in hexes" : "centre to centre"}`) : null,
    kv(rows), el("div", { class: "row" }, showOnTable(a, b), bookmarkButton(a, b))], app.card);
}

const chargeText = (c) => (c.reachable ? `reaches with ${c.model} (${fmt(c.cost)}" of ${fmt(c.allowance)}")`
  : `cannot reach (${fmt(c.allowance)}" allowance)${c.disorder_if_not ? "; disordered if it tries" : ""}`)
  + (c.too_close_to_call ? " — too close to call" : "");

// A sight line, with its margin when the camera's error bars give one: how far the line would have to move
// sideways to change the verdict (docs/uncertainty.md).
const sightWords = (s) => (s.visible ? "clear" : "blocked") + (typeof s.margin === "number"
  ? ` (${s.margin.toFixed(2)}" ${s.visible ? "to spare" : "short of clear"})` : "");

async function unitInfo(unitId, modelId) {
  app.unit = unitId;
  app.card = { kind: "unit", unit: unitId, model: modelId, inputs: answerInputs(app.state) };
  app.view.path = null;
  renderUnits(app.state);
  const scene = app.state.scene;
  const unit = unitOf(scene, unitId) || { id: unitId };
  const asks = ["cohesion", "moves", "targets", "bands", "melee"].filter(has);
  const sel = app.state.selection || {};
  const weapon = sel.unit === unitId && sel.weapon ? [sel.weapon] : [];     // the weapon the table shows
  const answers = Object.fromEntries(await Promise.all(asks.map(async (q) =>
    [q, await settle(q === "bands" ? ask(q, unitId, ...weapon) : ask(q, unitId))])));
  if (app.unit !== unitId || app.card?.kind !== "unit") return;
  const rows = [["player", String(unit.player ?? "—")], ...unitFacts(scene, unit)];
  const c = answers.cohesion?.v;
  if (c) rows.push(["cohesion", c.coherent ? "coherent" : `out: ${(c.out_of_cohesion || []).join(", ")}`]);
  const moves = answers.moves?.v;
  app.view.reach = moves?.reachable || null;
  if (moves) rows.push(["can reach", `${moves.reachable.length} hexes`]);
  const melee = answers.melee?.v;
  if (melee) rows.push(["melee", melee.in_melee ? (melee.melee || []).map((m) => (typeof m === "string" ? m
    : `${m.model ?? ""} – ${(m.enemies || m.with || []).join?.(", ") ?? JSON.stringify(m)}`)).join("; ") : "not in melee"]);
  const model = modelId && scene.models.find((m) => m.id === modelId);
  if (model && has("move") && app.rules?.orders?.length) rows.push(...await moveRows(model));
  if (app.unit !== unitId || app.card?.kind !== "unit") return;
  const t = answers.targets?.v;
  if (t) rows.push(["targets", listTargets(t)]);
  const bands = answers.bands?.v;
  app.view.rings = bands?.bands?.length ? { unit: unitId, answer: bands } : null;
  if (app.view.rings) rows.push(["range bands", `${bands.weapon ? `${bands.weapon}: ` : ""}${bands.bands.map((b) =>
    `${words(b.band)} ${fmt(b.from)}–${fmt(b.to)}"`).join(" · ")} (drawn)`]);
  if (!asks.length) rows.push(["rules", `${app.ruleset} answers no unit questions yet`]);
  const unanswered = Object.values(answers).find((a) => a.lost);
  if (unanswered) rows.push(["not answered", el("span", { class: "lost" }, unanswered.e)]);
  redraw();
  showInfo([el("h3", {}, unit.name || unitId, modelId ? el("small", {}, ` · ${modelId}`) : null),
    kv(rows), el("p", { class: "hint" }, modelId ? `Tap another model to measure${rows.some(([k]) => k === "order")
      ? ", or the board to check a move there" : ""}.` : ""),
    showOnTable(modelId || unitId, null)], app.card);
}

// A model's movement under an order (a rule system with `move MODEL ORDER X,Y` and orders): the order
// to move under, its allowance (a move to where the model stands), and a tap on the board checks a move
// to that point, its path drawn.
async function moveRows(model) {
  const orders = app.rules.orders;
  app.view.order = orders.includes(app.view.order) ? app.view.order : orders.includes("standard") ? "standard" : orders[0];
  const here = await settle(ask("move", model.id, app.view.order, `${model.x},${model.y}`));
  const select = el("select", { id: "order", "aria-label": "order", on: { change: (event) => {
    app.view.order = event.target.value; app.card.inputs = null; refreshCard(); } } },
  orders.map((o) => el("option", { value: o, selected: o === app.view.order }, words(o))));
  const allowance = here.v ? `${fmt(here.v.allowance)}"` : declined(here.e);
  return [["order", select], ["move allowance", allowance],
          ["reach", here.v ? "tap the board to check a move there" : "—"]];
}

async function checkMove(model, x, y) {
  const point = `${Math.round(x * 10) / 10},${Math.round(y * 10) / 10}`;
  const answer = await settle(ask("move", model.id, app.view.order, point));
  if (answer.e) return showInfo([el("h3", {}, `${model.id} → ${point}`), el("p", {}, answer.e)]);
  const m = answer.v;
  app.view.path = m.path || null;
  app.card = { kind: "unit", unit: model.unit, model: model.id, inputs: answerInputs(app.state) };
  redraw();
  showInfo([el("h3", {}, `${model.id}: ${words(m.order)} move to ${point}`),
    el("div", { class: "big", id: "move-verdict" }, m.legal ? "Can move there" : "Cannot move there"),
    kv([["costs", `${fmt(m.cost)}" of ${fmt(m.allowance)}"`], ["length", `${fmt(m.length)}"`],
        ...(m.difficult ? [["difficult", `${fmt(m.difficult)}"`]] : []), ...(m.climb ? [["climb", `${fmt(m.climb)}"`]] : []),
        ...((m.problems || []).length ? [["problems", m.problems.join("; ")]] : [])]),
    el("p", { class: "hint" }, "Tap elsewhere to check another point, or the model again to close.")], app.card);
}

// Targets as the rule system answers them: a plain list, or per base its target, the other candidates
// and those it may not shoot with the reason (a target priority).
function listTargets(answer) {
  const name = (t) => (typeof t === "string" ? t : t.model || t.unit || t.id || t.target || JSON.stringify(t));
  if (Array.isArray(answer) || Array.isArray(answer.targets)) {
    const items = Array.isArray(answer) ? answer : answer.targets;
    return items.length ? items.map(name).join(", ") : "none";
  }
  if (!Array.isArray(answer.bases)) return "none";
  return el("ul", { class: "targets" }, answer.bases.map((b) => el("li", {},
    el("strong", {}, `${b.model} → ${b.target ?? "no target"}`),
    b.target ? el("small", {}, ` ${describeCandidate((b.candidates || []).find((c) => c.model === b.target))}`) : null,
    (b.excluded || []).length ? el("details", {}, el("summary", {}, `${b.excluded.length} not targetable`),
      el("ul", {}, b.excluded.map((x) => el("li", {}, `${x.model}: ${x.reason}`)))) : null)));
}

const describeCandidate = (c) => (c ? `${fmt(c.distance)}" · ${words(c.band || "")}${c.weapon ? ` · ${c.weapon}` : ""}` : "");

// Hex games: the tapped hex's path and cost, from the unit's `moves` answer.
function showPath(x, y) {
  const layout = hexLayout(app.state.scene.hexgrid);
  const h = cubeRound(...layout.fractional(x, y));
  const entry = app.view.reach.find((r) => r.hex[0] === h[0] && r.hex[1] === h[1]);
  app.view.path = entry?.path ? entry.path.map((p) => layout.toBoard(p)) : null;
  const unit = app.unit;
  showInfo([el("h3", {}, `${unit} → [${h}]`), entry
    ? kv([["cost", fmt(entry.cost)], ["path", (entry.path || []).map((p) => `[${p}]`).join(" ")]])
    : el("p", {}, "out of reach this move"),
  entry ? el("button", { type: "button", id: "path-on-table", on: { click: () => attempt(async () => {
    await send("POST", "/api/select", { id: unit });
    await send("POST", "/api/destination", { hex: h });
  }, "Path shown on the table") } }, "Show the path on the table") : null]);
  redraw();
}

function cubeRound(q, r) {
  const sq = -q - r;
  let rq = Math.round(q), rr = Math.round(r);
  const rs = Math.round(sq);
  const dq = Math.abs(rq - q), dr = Math.abs(rr - r), ds = Math.abs(rs - sq);
  if (dq > dr && dq > ds) rq = -rr - rs; else if (dr > ds) rr = -rq - rs;
  return [rq, rr];
}

function showOnTable(a, b) {
  return el("button", { type: "button", on: { click: () => attempt(async () => {
    await send("POST", "/api/select", { id: a });
    if (b) await send("POST", "/api/target", { id: b });
  }, "Shown on the table") } }, "Show on the table");
}

// The screen stays on while the board is open (Screen Wake Lock, where the browser has it).
function keepAwake() {
  if (!navigator.wakeLock) return;
  const ask = () => navigator.wakeLock.request("screen").catch(() => {});
  ask();
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") ask(); });
}

// ------------------------------------------------------------------ navigation
function route() {
  const hash = location.hash.slice(1) || "board";
  const [view, sub] = hash.split("/");
  for (const name of ["board", "dice", "log", "replay", "setup"]) $(`view-${name}`).hidden = name !== view;
  const tab = view === "replay" ? "log" : view;            // the replay is the game log's
  for (const a of document.querySelectorAll("#tabs a")) {
    const on = a.hash.slice(1).split("/")[0] === tab;
    a.classList.toggle("on", on);
    if (on) a.setAttribute("aria-current", "page"); else a.removeAttribute("aria-current");
  }
  if (view === "log") { refreshLog(); refreshBookmarks(); }
  if (view === "replay") openReplay(app, Number(sub) || null);
  showSetup(view === "setup" ? sub || "camera" : null, app);
  if (view === "board") redraw();                   // its labels are placed as laid out on screen
}

setupForms(app);
replayControls();
app.zoom = zoomable($("board"), { board: () => app.state?.scene.board ?? { width: 48, height: 48 },
  onTap: (event, [x, y]) => onBoardTap(x, y), onDoubleTap: zoomToUnitAt, onChange: redraw });
$("zoom-reset").addEventListener("click", () => app.zoom.reset());
sandboxHand(app, $("board"), redraw);
$("ruler-mode").addEventListener("click", () => {
  app.rulerMode = !app.rulerMode; app.view.rulerStart = null; redraw();
});
$("ruler-clear").addEventListener("click", clearRuler);
$("ruler-bookmark").addEventListener("click", () => takeBookmark({ ruler: true }));
// Changes that cannot be taken back by a tap elsewhere ask first; undo takes back the last change.
$("next-phase").addEventListener("click", async () => {
  const p = app.state?.phase || {}, phases = p.phases || [];
  const next = phases.length ? phases[((p.step ?? 0) + 1) % phases.length] : "the next phase";
  if (await confirmed(`End the ${words(p.phase || "current")} phase and go to ${words(next)}?`, "Next phase"))
    attempt(() => send("POST", "/api/phase/advance"));
});
$("undo").addEventListener("click", async () => {
  if (await confirmed("Take back the last change?", "Undo")) attempt(() => send("POST", "/api/undo"), "Undone");
});
window.addEventListener("hashchange", route);
new ResizeObserver(keepClearOfTop).observe($("top"));
keepAwake();
route();
getJSON("/api/state").then(apply).catch(() => {}).finally(() => connect(app, apply));
