// The dice roller: the form follows the table's rule system; the table rolls and logs every roll.
import { attempt, el, kv, send } from "./api.js";
import { players } from "./board.js";

const $ = (id) => document.getElementById(id);
const PLAIN = { kind: "dice", title: "Dice", fields: [
  { name: "count", label: "Dice", kind: "integer", initial: 2 }, { name: "sides", label: "Sides", kind: "integer", initial: 6 }] };

function stepper(name, value = 0, lo = 0, hi = 60) {
  const out = el("output", { name }, String(value));
  const change = (delta) => { out.value = String(Math.max(lo, Math.min(hi, Number(out.value) + delta))); };
  return el("div", { class: "stepper" }, el("span", { class: "name" }, name),
    el("button", { type: "button", "aria-label": `one ${name} less`, on: { click: () => change(-1) } }, "−"), out,
    el("button", { type: "button", "aria-label": `one ${name} more`, on: { click: () => change(1) } }, "+"));
}

const number = (name, label, value = 0) => el("label", {}, label,
  el("input", { name, type: "number", inputmode: "numeric", value, step: 1 }));
const text = (name, label, placeholder) => el("label", {}, label,
  el("input", { name, placeholder, inputmode: "numeric", required: true }));

// One input per declared field (the rule system's `dice`, GET /api/rulesets).
function inputs(field, app) {
  switch (field.kind) {
    case "count": return [stepper(field.name, field.initial, field.minimum, field.maximum)];
    case "toggle": return [el("label", {}, el("span", {},
      el("input", { type: "checkbox", name: field.name, checked: field.initial === field.values[1] }), ` ${field.label}`))];
    case "integers": return [text(field.name, field.label, String(field.initial ?? ""))];
    case "per_player": return players(app.state.scene).map((p) =>
      number(`${field.name}:${p}`, field.label.replace("{player}", p), field.initial ?? 0));
    default: return [number(field.name, field.label, field.initial ?? 0)];
  }
}

function value(field, form) {
  const element = form.elements[field.name];
  switch (field.kind) {
    case "toggle": return element.checked ? field.values[1] : field.values[0];
    case "integers": return element.value.split(/[ ,]+/).filter(Boolean).map(Number);
    case "per_player": return [...form.elements].filter((e) => e.name?.startsWith(`${field.name}:`))
      .map((e) => ({ player: e.name.slice(field.name.length + 1), modifier: +e.value }));
    default: return +element.value;
  }
}

export function renderDice(app) {
  const form = $("dice-form");
  const kind = app.rules?.dice?.[0] || PLAIN;
  $("dice-system").textContent = kind.title;
  form.replaceChildren(...kind.fields.flatMap((f) => inputs(f, app)),
    el("button", { type: "submit", class: "primary" }, "Roll"));
  form.onsubmit = async (event) => {
    event.preventDefault();
    const params = Object.fromEntries(kind.fields.map((f) => [f.name, value(f, form)]));
    const reply = await attempt(() => send("POST", "/api/roll", { kind: kind.kind, ...params }));
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

// Known parts get a picture (dice, successes); the rest is the details table (e.g. a combat's details).
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
