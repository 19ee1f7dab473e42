// The dice roller: the form follows the table's rule system; the table rolls and logs every roll.
import { attempt, el, kv, send } from "./api.js";
import { players } from "./board.js";

const $ = (id) => document.getElementById(id);
const TITLES = { synaptik: "Synaptik pool", age_of_tyrants: "Age of Tyrants attack",
                 syniad: "Syniad combat", hex_skirmish: "Initiative (d8)" };

function stepper(name, value = 0) {
  const out = el("output", { name }, String(value));
  const change = (delta) => { out.value = String(Math.max(0, Math.min(60, Number(out.value) + delta))); };
  return el("div", { class: "stepper" }, el("span", { class: "name" }, name),
    el("button", { type: "button", "aria-label": `one ${name} less`, on: { click: () => change(-1) } }, "−"), out,
    el("button", { type: "button", "aria-label": `one ${name} more`, on: { click: () => change(1) } }, "+"));
}

const number = (name, label, value = 0) => el("label", {}, label,
  el("input", { name, type: "number", inputmode: "numeric", value, step: 1 }));
const text = (name, label, placeholder) => el("label", {}, label,
  el("input", { name, placeholder, inputmode: "numeric", required: true }));

const FORMS = {
  synaptik: () => [stepper("d6", 3), stepper("d8"), stepper("d10"),
    el("label", {}, el("span", {}, el("input", { type: "checkbox", name: "reroll" }), " reroll failures once"))],
  age_of_tyrants: () => [number("attack", "Attacker AM/AP", 2), number("modifiers", "Attack modifiers"),
    number("defence", "Target SR", 2), number("defence_modifiers", "Defence modifiers")],
  syniad: () => [text("attackers", "Attacking strengths", "7, 5"), text("defenders", "Defending strengths", "6")],
  hex_skirmish: (app) => players(app.state.scene).map((p) => number(`army:${p}`, `Army ${p} modifier`)),
};

function params(ruleset, form) {
  const v = (n) => form.elements[n].value;
  const list = (n) => v(n).split(/[ ,]+/).filter(Boolean).map(Number);
  switch (ruleset) {
    case "synaptik": return { kind: "pool", d6: +v("d6"), d8: +v("d8"), d10: +v("d10"),
                              reroll: form.elements.reroll.checked ? "failures" : "none" };
    case "age_of_tyrants": return { kind: "attack", attack: +v("attack"), modifiers: +v("modifiers"),
                                    defence: +v("defence"), defence_modifiers: +v("defence_modifiers") };
    case "syniad": return { kind: "combat", attackers: list("attackers"), defenders: list("defenders") };
    case "hex_skirmish": return { kind: "initiative", armies: [...form.elements]
      .filter((e) => e.name?.startsWith("army:")).map((e) => ({ player: e.name.slice(5), modifier: +e.value }))};
    default: return { kind: "dice", count: +v("count"), sides: +v("sides") };
  }
}

export function renderDice(app) {
  const form = $("dice-form");
  const ruleset = app.ruleset;
  $("dice-system").textContent = TITLES[ruleset] || ruleset;
  const fields = (FORMS[ruleset] || (() => [number("count", "Dice", 2), number("sides", "Sides", 6)]))(app);
  form.replaceChildren(...fields, el("button", { type: "submit", class: "primary" }, "Roll"));
  form.onsubmit = async (event) => {
    event.preventDefault();
    const reply = await attempt(() => send("POST", "/api/roll", params(ruleset, form)));
    if (reply) showResult(reply.result || {});
  };
}

function dieFace(d) {
  const value = typeof d === "object" ? d.value : d;
  const hit = typeof d === "object" && d.value >= 5 && d.sides;
  const again = typeof d === "object" && (d.rerolled || d.rerolled_from) ? " ↻" : "";
  const small = typeof d === "object" && d.sides ? el("small", {}, `d${d.sides}${again}`) : null;
  return el("div", { class: `die${hit ? " hit" : ""}` }, el("div", {}, el("b", {}, String(value)), small));
}

const words = (text) => String(text).replace(/_/g, " ");

function shown(v) {
  if (Array.isArray(v)) return v.map(shown).join(", ");
  if (v && typeof v === "object") {
    if ("player" in v) return `${v.player}: ${v.die ?? ""}${v.total !== undefined ? ` → ${v.total}` : ""}`;
    return Object.entries(v).map(([k, x]) => `${words(k)} ${shown(x)}`).join(", ");
  }
  return words(v);
}

// Known parts get a picture (dice, successes); the rest is the details table (Syniad's Combat Details).
function showResult(result) {
  const box = $("dice-result");
  const parts = [];
  if ("successes" in result) {
    parts.push(el("div", { class: "big" }, `${result.successes} success${result.successes === 1 ? "" : "es"}`));
  }
  if ("outcome" in result || "winner" in result) {
    parts.push(el("div", { class: "big" }, words(result.outcome ?? `${result.winner} wins`)));
  }
  if (Array.isArray(result.dice)) parts.push(el("div", { class: "dice" }, result.dice.map(dieFace)));
  const rest = Object.entries(result).filter(([k]) => !["dice", "successes", "kind", "outcome"].includes(k));
  if (rest.length) {
    parts.push(el("h3", {}, result.kind === "initiative" ? "Initiative" : "Combat details"));
    parts.push(kv(rest.map(([k, v]) => [words(k), shown(v)])));
  }
  box.replaceChildren(...parts);
  box.hidden = false;
}
