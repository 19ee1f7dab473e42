// Set-up pages: camera and calibration, terrain editor, roster and marker sheets, settings, LED strip.
import { attempt, el, getJSON, send } from "./api.js";
import { boardPoint, drawBoard, hexLayout, s } from "./board.js";
import { renderCameraSummary } from "./camera.js";
import { armyUnit, renderArmy, setupArmy } from "./army.js";
import { renderMarkerPrompt } from "./placing.js";
import { renderGames, rulesets as systems, setupGames } from "./games.js";

const $ = (id) => document.getElementById(id);
const TRAITS = ["light_cover", "heavy_cover", "difficult", "impassable", "road", "elevated", "flat",
                "defensible", "shelter", "concealment", "fordable", "water"];
const editor = { pieces: null, draft: [], sub: null, settingsShown: false };
let rulesets = null;

export function showSetup(sub, app) {
  editor.sub = sub;
  for (const name of ["game", "army", "camera", "terrain", "roster", "settings", "leds"]) $(`setup-${name}`).hidden = name !== sub;
  for (const a of document.querySelectorAll(".subtabs a")) a.classList.toggle("on", a.hash === `#setup/${sub}`);
  const img = $("camera");
  if (sub === "camera") {
    img.onerror = () => { img.hidden = true; $("camera-note").textContent = "No camera view on this table right now."; };
    img.onload = () => { img.hidden = false; $("camera-note").textContent = ""; };
    img.src = "/api/camera.mjpeg";
  } else img.removeAttribute("src");                  // closes the stream
  if (sub === "terrain" && app.state) {
    editor.pieces = structuredClone(app.state.scene.terrain || []);
    editor.hexes = structuredClone(app.state.scene.hexes || []);
  }
  editor.filled = false;
  renderSetup(app);
}

export function renderSetup(app) {
  if (!app.state || !editor.sub) return;
  const state = app.state;
  if (editor.sub === "camera") { renderCameraSummary($("camera-summary"), state); renderStatus(state.status || {}); }
  if (editor.sub === "terrain") renderTerrain(state);
  if (editor.sub === "army") renderArmy(app);
  if (editor.sub === "game" && !editor.filled) { editor.filled = true; renderGames(app); }
  if (editor.sub === "roster") renderRoster(state);
  renderMarkerPrompt(state, [armyUnit(), state.selection?.unit], editor.sub === "army" || editor.sub === "roster");
  if (editor.sub === "leds") renderLeds(state);
  if (editor.sub === "settings" && !editor.filled) { editor.filled = true; loadSettings(app); }
}

function flat(value) {
  if (value && typeof value === "object") return Object.entries(value).map(([k, v]) => `${k} ${flat(v)}`).join(", ");
  return String(value);
}

function renderStatus(status) {
  const shown = Object.entries(status).filter(([k, v]) => k !== "led_layout" && v !== "" && v !== null
    && !(typeof v === "object" && !Object.keys(v).length));
  $("status").replaceChildren(...shown.flatMap(([k, v]) => [el("dt", {}, k.replace(/_/g, " ")), el("dd", {}, flat(v))]));
}

// ------------------------------------------------------------------ terrain editor
// Polygon pieces with the traits the rule system reads; in a hex system, a hex's terrain by a tap on it.
function renderTerrain(state) {
  if (!editor.pieces) editor.pieces = structuredClone(state.scene.terrain || []);
  if (!editor.hexes) editor.hexes = structuredClone(state.scene.hexes || []);
  if (editor.system !== state.scene.ruleset) showTerrainKinds(state.scene);
  drawBoard($("terrain-board"), { ...state.scene, terrain: editor.pieces, hexes: editor.hexes },
            { draft: editor.draft });
  const hexes = editor.hexes.map((h, i) => el("li", {},
    el("span", {}, `hex ${h.hex.join(",")} · ${h.terrain}`),
    el("button", { type: "button", on: { click: () => { editor.hexes.splice(i, 1); renderTerrain(state); } } },
      "Delete")));
  $("terrain-list").replaceChildren(...editor.pieces.map((t, i) => el("li", {},
    el("span", {}, `${t.id} · ${t.height ?? 0}" · ${(t.traits || []).join(", ") || "no traits"}`),
    el("button", { type: "button", on: { click: () => { editor.pieces.splice(i, 1); renderTerrain(state); } } },
      "Delete"))), ...hexes);
}

// The traits (polygon systems) or hex terrains (hex systems) the table's rule system reads.
async function showTerrainKinds(scene) {
  editor.system = scene.ruleset;
  const terrain = (await systems()).find((r) => r.name === scene.ruleset)?.terrain || { traits: [], hexes: [] };
  const hex = !!scene.hexgrid;
  $("terrain-form").hidden = hex;
  $("hex-form").hidden = !hex;
  $("terrain-hint").textContent = hex ? "Pick a terrain, then tap a hex to give it that terrain."
                                      : "Tap the board to add corners of a new piece.";
  $("traits").replaceChildren(el("legend", {}, "Traits"), ...terrain.traits.map((t) => el("label", {},
    el("input", { type: "checkbox", name: "trait", value: t }), t.replace(/_/g, " "))));
  $("hex-terrain").replaceChildren(...terrain.hexes.map((t) => el("option", { value: t }, t.replace(/_/g, " "))));
}

// The hex (axial [q, r]) under board point (x, y).
function hexAt(spec, x, y) {
  const [fq, fr] = hexLayout(spec).fractional(x, y);
  const fs = -fq - fr;
  let [q, r, t] = [Math.round(fq), Math.round(fr), Math.round(fs)];
  const [dq, dr, ds] = [Math.abs(q - fq), Math.abs(r - fr), Math.abs(t - fs)];
  if (dq > dr && dq > ds) q = -r - t; else if (dr > ds) r = -q - t;
  return [q, r];
}

function setupTerrainForm(app) {
  $("terrain-board").addEventListener("click", (event) => {
    const [x, y] = boardPoint($("terrain-board"), event);
    const grid = app.state?.scene.hexgrid;
    if (grid) {
      const hex = hexAt(grid, x, y), terrain = $("hex-terrain").value;
      editor.hexes = editor.hexes.filter((h) => h.hex[0] !== hex[0] || h.hex[1] !== hex[1]);
      if (terrain !== "clear") editor.hexes.push({ hex, terrain });
      return renderTerrain(app.state);
    }
    editor.draft.push([Math.round(x * 4) / 4, Math.round(y * 4) / 4]);
    renderTerrain(app.state);
  });
  $("undo-point").addEventListener("click", () => { editor.draft.pop(); renderTerrain(app.state); });
  $("clear-draft").addEventListener("click", () => { editor.draft = []; renderTerrain(app.state); });
  $("terrain-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target;
    if (editor.draft.length < 3) return attempt(() => Promise.reject(new Error("tap at least 3 corners")));
    const traits = [...form.querySelectorAll("input[name=trait]:checked")].map((c) => c.value);
    editor.pieces.push({ id: form.elements.id.value, polygon: editor.draft, height: +form.elements.height.value || 0,
                         traits });
    editor.draft = [];
    form.elements.id.value = `piece-${editor.pieces.length + 1}`;
    renderTerrain(app.state);
  });
  const terrainBody = () => (app.state?.scene.hexgrid ? { hexes: editor.hexes } : { terrain: editor.pieces });
  $("save-terrain").addEventListener("click", () =>
    attempt(() => send("PUT", "/api/terrain", terrainBody()), "Terrain saved to the table"));
  $("scene-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = event.target.elements.name.value;
    attempt(() => send("PUT", `/api/scenes/${encodeURIComponent(name)}`), `Scene saved as ${name}`);
  });
  $("scenario-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = event.target.elements.name.value;
    // the board as drawn here: pieces not yet saved to the table go to it first
    const body = terrainBody(), scene = app.state?.scene || {};
    const unsaved = JSON.stringify(body) !== JSON.stringify(scene.hexgrid ? { hexes: scene.hexes || [] }
                                                                          : { terrain: scene.terrain || [] });
    attempt(async () => {
      if (unsaved) await send("PUT", "/api/terrain", body);
      return send("PUT", `/api/scenarios/${encodeURIComponent(name)}`, {});
    }, `Scenario saved as ${name}`);
  });
}

// ------------------------------------------------------------------ roster
function renderRoster(state) {
  const models = state.scene.models || [];
  const rows = models.map((m) => {
    const input = el("input", { type: "number", min: 0, inputmode: "numeric", placeholder: "seen", value: m.marker });
    return el("tr", {}, el("td", {}, m.id), el("td", {}, m.unit), el("td", {}, input),
      el("td", {}, el("button", { type: "button", on: { click: () => attempt(() => send("POST", "/api/roster/assign",
        { model: m.id, marker: input.value === "" ? null : +input.value }), `Marker assigned to ${m.id}`) } },
        "Assign")));
  });
  if (document.activeElement?.closest("#roster")) return;     // don't redraw under the player's thumb
  $("roster").replaceChildren(el("tr", {}, ["model", "unit", "marker", ""].map((h) => el("th", {}, h))), ...rows);
  const unknown = (state.warnings || []).filter((w) => w.kind === "unknown_marker").map((w) => w.id.split(":").pop());
  $("unknown-markers").textContent = unknown.length ? `Unassigned markers in view: ${unknown.join(", ")}` : "";
  const ids = models.map((m) => m.marker).filter((v) => typeof v === "number");
  $("sheet").href = `/api/markers/sheet.svg?ids=${ids.join(",") || "0"}`;
}

// ------------------------------------------------------------------ settings
async function loadSettings(app) {
  rulesets = await systems();
  const form = $("settings-form");
  form.elements.ruleset.replaceChildren(...rulesets.map((r) => el("option", { value: r.name,
    selected: r.name === app.state?.ruleset }, r.title)));
  showRulings(app);
  form.elements.ruleset.onchange = () => showRulings(app);
}

// The rulings form, generated from the rule system's typed options (GET /api/rulesets: `options`).
function rulingInput(option, value) {
  const name = `ruling:${option.name}`, label = option.name.replace(/_/g, " ");
  if (option.kind === "bool") {
    return el("label", {}, el("input", { type: "checkbox", name, checked: value === true }), label);
  }
  if (option.kind === "choice") {
    return el("label", {}, label, el("select", { name }, ...option.choices.map((c) =>
      el("option", { value: c, selected: c === value }, c.replace(/_/g, " ")))));
  }
  if (option.kind === "choices") {
    return el("fieldset", { "data-name": name }, el("legend", {}, label), ...option.choices.map((c) =>
      el("label", {}, el("input", { type: "checkbox", name, value: c, checked: (value || []).includes(c) }), c)));
  }
  const limits = { ...(option.minimum !== undefined ? { min: option.minimum } : {}),
                   ...(option.maximum !== undefined ? { max: option.maximum } : {}) };
  return el("label", {}, label, el("input", { name, type: "number", value: value ?? "", ...limits,
    step: option.kind === "integer" ? 1 : "any", placeholder: option.optional ? "none" : "" }));
}

function rulingValue(option, form) {
  const name = `ruling:${option.name}`;
  if (option.kind === "choices") return [...form.querySelectorAll(`[name='${name}']:checked`)].map((i) => i.value);
  const input = form.querySelector(`[name='${name}']`);
  if (option.kind === "bool") return input.checked;
  if (option.kind === "choice") return input.value;
  return input.value === "" && option.optional ? null : Number(input.value);
}

// A list of choices is a set: the same ticks in another order are no change.
function sameValue(option, a, b) {
  const norm = (v) => (option.kind === "choices" && Array.isArray(v) ? [...v].sort() : v ?? null);
  return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
}

function showRulings(app) {
  const form = $("settings-form");
  const chosen = rulesets.find((r) => r.name === form.elements.ruleset.value);
  const current = { ...(chosen?.rulings || {}), ...(chosen?.name === app.state?.ruleset
    ? app.state?.status?.rulings || {} : {}) };
  editor.shown = { ruleset: form.elements.ruleset.value, rulings: current,
                   brightness: app.state?.status?.brightness ?? 1 };
  // each ruling with its line of help: the rule system's own declaration (its rulings page says more)
  const fields = (chosen?.options || []).map((o) => el("div", { class: "ruling" }, rulingInput(o, current[o.name]),
    el("small", { class: "ruling-help" }, o.help || "")));
  $("rulings").replaceChildren(el("legend", {}, "Rulings"), ...(fields.length ? fields : [el("span", { class: "hint" },
    "No options for this rule system.")]));
  form.elements.brightness.value = String(editor.shown.brightness);
}

function setupSettingsForm(app) {
  $("settings-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const form = event.target, shown = editor.shown;
    const chosen = rulesets.find((r) => r.name === form.elements.ruleset.value);
    const change = {}, rulings = {};
    for (const option of chosen?.options || []) {
      const value = rulingValue(option, form);
      if (!sameValue(option, value, shown.rulings[option.name])) rulings[option.name] = value;
    }
    if (form.elements.ruleset.value !== app.state?.ruleset) change.ruleset = form.elements.ruleset.value;
    if (Object.keys(rulings).length || change.ruleset) change.rulings = rulings;
    const brightness = Number(form.elements.brightness.value);
    if (Math.abs(brightness - shown.brightness) > 1e-9) change.brightness = brightness;
    if (!Object.keys(change).length) return attempt(async () => {}, "Nothing changed");
    return attempt(async () => {
      await send("PUT", "/api/settings", change);
      if (change.ruleset) { editor.filled = false; return; }   // the new system's form once its state arrives
      shown.rulings = { ...shown.rulings, ...rulings };                  // the next save compares with what was saved
      if ("brightness" in change) shown.brightness = brightness;
    }, "Settings saved");
  });
}

// ------------------------------------------------------------------ LEDs
// Each LED drawn where it stands around or under the board (status.led_layout: board inches per LED);
// a table that reports no positions gets the plain strip.
function renderLeds(state) {
  const leds = state.leds || [], at = state.status?.led_layout?.positions || [];
  const svg = $("led-board");
  const placed = Boolean(leds.length && at.length === leds.length);
  svg.toggleAttribute("hidden", !placed);              // an SVG element has no `hidden` property
  $("leds").hidden = placed;
  if (!leds.length) { $("leds").replaceChildren(el("p", { class: "hint" }, "This table reports no LED strip.")); return; }
  if (!placed) {
    $("leds").replaceChildren(...leds.map(([r, g, b], i) => el("div", { class: "led", title: `LED ${i}`,
      style: `background: rgb(${r} ${g} ${b})` })));
    return;
  }
  const scene = state.scene, width = scene.board?.width ?? 48, height = scene.board?.height ?? 48;
  drawBoard(svg, { ...scene, models: [] });
  const xs = [0, width, ...at.map((p) => p[0])], ys = [0, height, ...at.map((p) => p[1])];
  const pad = 1;
  const x0 = Math.min(...xs) - pad, y0 = Math.min(...ys) - pad;
  svg.setAttribute("viewBox", `${x0} ${y0} ${Math.max(...xs) + pad - x0} ${Math.max(...ys) + pad - y0}`);
  let gap = Infinity;                                     // LED size from the spacing of the first two
  if (at.length > 1) gap = Math.hypot(at[1][0] - at[0][0], at[1][1] - at[0][1]) || Infinity;
  const r = Math.min(0.4, gap / 2.2);
  const group = s("g", { class: "leds-at" });
  leds.forEach(([red, green, blue], i) => {
    const dot = s("circle", { class: "led-at", cx: at[i][0], cy: at[i][1], r, "data-led": i,
                              fill: `rgb(${red} ${green} ${blue})` });
    dot.append(s("title", {}, `LED ${i}`));
    group.append(dot);
  });
  svg.append(group);
}

export function setupForms(app) { setupTerrainForm(app); setupSettingsForm(app); setupGames(app); setupArmy(app); }
