// The Army set-up page: the game's units (add, edit, remove) built from the fields the rule system declares
// (GET /api/rulesets: `units`), and army lists (save a player's units, load a saved list, export as a file).
import { attempt, el, getJSON, send } from "./api.js";
import { fieldInput, fieldValues } from "./fields.js";
import { rulesets } from "./games.js";

const $ = (id) => document.getElementById(id);
const army = { editing: null, system: null, added: null };
const on = (fields, place) => fields.filter((f) => f.place === place);

// The unit being edited, else the one added last on this page (its models are offered their markers).
export const armyUnit = () => army.editing || army.added;

async function profile(app) {
  const name = app.state?.scene.ruleset;
  return (await rulesets()).find((r) => r.name === name)?.units;
}

// The unit form for the game's rule system, holding `unit` (a new one: the defaults).
function fillForm(units, unit, players) {
  const form = $("unit-form");
  const weapon = unit?.weapons?.[0] || {};
  form.elements.id.value = unit?.id ?? "";
  form.elements.id.readOnly = !!unit;
  form.elements.name.value = unit?.name ?? "";
  form.elements.player.replaceChildren(...players.map((p) => el("option", { value: p, selected: p === unit?.player }, p)));
  const { min, max } = units.models;
  form.elements.count.min = min; form.elements.count.max = max; form.elements.count.value = min;
  $("count-label").hidden = min === max || !!unit;
  $("unit-stats").replaceChildren(...on(units.fields, "stats").map((f) => fieldInput(f, unit?.stats?.[f.name])),
    ...on(units.fields, "unit").map((f) => fieldInput(f, unit?.[f.name])));
  $("unit-weapon").hidden = !units.weapons;
  if (units.weapons) {
    $("unit-weapon").replaceChildren(el("legend", {}, "Weapon"),
      el("label", {}, "Weapon name", el("input", { name: "weapon", value: weapon.name ?? "" })),
      ...on(units.fields, "weapon").map((f) => fieldInput(f, weapon[f.name])));
  }
  $("unit-submit").textContent = unit ? `Save ${unit.id}` : "Add unit";
  $("unit-cancel").hidden = !unit;
}

function formUnit(units) {
  const form = $("unit-form");
  const unit = { id: form.elements.id.value.trim(), player: form.elements.player.value,
                 stats: fieldValues(on(units.fields, "stats"), $("unit-stats")),
                 ...fieldValues(on(units.fields, "unit"), $("unit-stats")) };
  if (form.elements.name.value.trim()) unit.name = form.elements.name.value.trim();
  const weapon = form.elements.weapon?.value.trim();
  if (units.weapons && weapon) unit.weapons = [{ name: weapon, ...fieldValues(on(units.fields, "weapon"), $("unit-weapon")) }];
  return unit;
}

export async function renderArmy(app) {
  const units = await profile(app);
  if (!units || !app.state) return;
  const scene = app.state.scene;
  const players = scene.players?.length ? scene.players : ["A", "B"];
  $("army-help").textContent = units.help;
  if (army.system !== scene.ruleset) {
    army.system = scene.ruleset; army.editing = null; fillForm(units, null, players);
    $("unit-form").dataset.system = scene.ruleset;
  }
  const count = (u) => scene.models.filter((m) => m.unit === u.id).length;
  $("unit-list").replaceChildren(...scene.units.map((u) => el("li", { "data-unit": u.id },
    el("span", {}, `${u.name || u.id} · ${u.player} · ${count(u)} model${count(u) === 1 ? "" : "s"}`),
    el("button", { type: "button", on: { click: () => { army.editing = u.id; fillForm(units, u, players); } } }, "Edit"),
    el("button", { type: "button", on: { click: () => attempt(() => send("DELETE", `/api/units/${encodeURIComponent(u.id)}`),
      `${u.id} removed`) } }, "Remove"))));
  const owner = $("army-player").value;          // the player chosen stays chosen as the state changes
  $("army-player").replaceChildren(el("option", { value: "" }, "every player"),
    ...players.map((p) => el("option", { value: p, selected: p === owner }, p)));
  const { armies } = await getJSON("/api/armies");
  const picked = $("army-saved").value;
  $("army-saved").replaceChildren(...armies.filter((a) => a.ruleset === scene.ruleset)
    .map((a) => el("option", { value: a.name, selected: a.name === picked }, `${a.title} (${a.units} units)`)));
  $("army-export").href = `/api/army?download=1${$("army-player").value ? `&player=${$("army-player").value}` : ""}`;
}

export function setupArmy(app) {
  $("unit-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const units = await profile(app);
    const unit = formUnit(units);
    const editing = army.editing;
    const done = editing
      ? await attempt(() => send("PUT", `/api/units/${encodeURIComponent(editing)}`, { unit }), `${editing} saved`)
      : await attempt(() => send("POST", "/api/units", { unit, count: Number($("unit-form").elements.count.value) }),
                      `${unit.id} added`);
    if (done && !editing) army.added = unit.id;
    if (done) { army.editing = null; fillForm(units, null, app.state.scene.players?.length ? app.state.scene.players : ["A", "B"]); }
  });
  $("unit-cancel").addEventListener("click", async () => { army.editing = null; army.system = null; renderArmy(app); });
  $("army-player").addEventListener("change", () => renderArmy(app));
  $("army-save").addEventListener("submit", (event) => {
    event.preventDefault();
    const name = event.target.elements.name.value.trim(), player = $("army-player").value;
    attempt(() => send("PUT", `/api/armies/${encodeURIComponent(name)}`, player ? { player } : {}),
            `Army ${name} saved`).then(() => renderArmy(app));
  });
  $("army-load").addEventListener("click", () => {
    const name = $("army-saved").value;
    if (name) attempt(() => send("POST", "/api/army", { name }), `Army ${name} loaded`);
  });
}
