// Giving each model its marker by placing it on the table: for a marker the camera sees that no model has
// (`status.unassigned`), the panel asks which model it is, offering the models without a marker of the
// selected unit (the one being edited, else the table's selection, else the newest with such models).
// Typing a marker number on the Roster page still works.
import { attempt, el, send } from "./api.js";

const $ = (id) => document.getElementById(id);
const prompt = { unit: null, shown: "" };

function freeModels(scene, unit) {
  return (scene.models || []).filter((m) => m.unit === unit && (m.marker === null || m.marker === undefined));
}

// The unit whose models are offered: the player's choice in the prompt, else `preferred` (the unit edited
// on the Army page, the table's selection), else the newest unit with a model that has no marker.
function offeredUnit(scene, preferred) {
  const open = (scene.units || []).filter((u) => freeModels(scene, u.id).length).map((u) => u.id);
  for (const unit of [prompt.unit, ...preferred]) if (unit && open.includes(unit)) return { unit, open };
  return { unit: open[open.length - 1] || null, open };
}

export function renderMarkerPrompt(state, preferred, visible) {
  const box = $("marker-prompt");
  const seen = visible ? state.status?.unassigned || [] : [];
  const { unit, open } = offeredUnit(state.scene, preferred);
  const free = unit ? freeModels(state.scene, unit) : [];
  const key = JSON.stringify([seen, unit, open, free.map((m) => m.id)]);
  if (key === prompt.shown) return;                  // unchanged: don't redraw under the player's thumb
  prompt.shown = key;
  box.hidden = !seen.length;
  if (!seen.length) { box.replaceChildren(); return; }
  const marker = seen[0];
  const units = el("select", { id: "marker-unit", "aria-label": "unit",
                               on: { change: (e) => { prompt.unit = e.target.value; prompt.shown = ""; } } },
    ...open.map((u) => el("option", { value: u, selected: u === unit }, u)));
  const choices = free.map((m) => el("button", { type: "button", class: "primary", "data-model": m.id,
    on: { click: () => attempt(() => send("POST", "/api/roster/assign", { model: m.id, marker: marker.marker }),
                                `Marker ${marker.marker} is ${m.id}`) } }, m.id));
  box.replaceChildren(
    el("p", { id: "marker-question" }, `Marker ${marker.marker} is on the table at (${marker.x}, ${marker.y}): `
      + (open.length ? "which model is it?" : "no model is without a marker: add a unit first.")),
    ...(open.length ? [el("label", {}, "Unit ", units), el("div", { class: "row", id: "marker-models" }, choices)] : []),
    ...(seen.length > 1 ? [el("p", { class: "hint" }, `${seen.length - 1} more marker${seen.length > 2 ? "s" : ""} `
      + `in view: ${seen.slice(1).map((s) => s.marker).join(", ")}`)] : []));
}
