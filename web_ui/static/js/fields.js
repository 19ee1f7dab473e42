// Form inputs for a rule system's unit fields (GET /api/rulesets: `units.fields`), and their values back.
// Each field is one <fieldset data-field> or <label data-field>; an empty input leaves the field out.
import { el } from "./api.js";

const words = (name) => String(name).replace(/_/g, " ");
const pair = (name, [a, b] = []) => [
  el("input", { type: "number", step: "any", name: `${name}.0`, value: a ?? "", "aria-label": `${words(name)} from` }),
  el("input", { type: "number", step: "any", name: `${name}.1`, value: b ?? "", "aria-label": `${words(name)} to` })];

// The input of one field, holding `value` (else the field's default).
export function fieldInput(field, value) {
  const v = value === undefined ? field.default : value;
  const label = `${field.label}${field.required ? " *" : ""}`;
  const attrs = { "data-field": field.name, "data-kind": field.kind, title: field.help || null };
  const n = field.name;
  if (field.kind === "integer" || field.kind === "number")
    return el("label", attrs, label, el("input", { type: "number", name: n, value: v ?? "", min: field.minimum,
      max: field.maximum, step: field.kind === "integer" ? "1" : "any", required: field.required }));
  if (field.kind === "text" || field.kind === "names")
    return el("label", attrs, label, el("input", { name: n, value: Array.isArray(v) ? v.join(", ") : v ?? "",
      placeholder: field.kind === "names" ? "comma, separated" : null, required: field.required }));
  if (field.kind === "bool")
    return el("label", attrs, el("input", { type: "checkbox", name: n, checked: v === true }), label);
  if (field.kind === "choice")
    return el("label", attrs, label, el("select", { name: n },
      field.required ? null : el("option", { value: "" }, "—"),
      field.choices.map((c) => el("option", { value: c, selected: c === v }, words(c)))));
  if (field.kind === "choices")
    return el("fieldset", attrs, el("legend", {}, label), field.choices.map((c) => el("label", {},
      el("input", { type: "checkbox", name: n, value: c, checked: (v || []).includes(c) }), words(c))));
  if (field.kind === "range") return el("fieldset", attrs, el("legend", {}, label), pair(n, v || []));
  if (field.kind === "bands")                       // {band: [from, to]}: the bands the default names
    return el("fieldset", attrs, el("legend", {}, label), Object.keys(field.default || v || {}).map((band) =>
      el("div", { class: "row", "data-band": band }, el("span", {}, words(band)), pair(band, (v || {})[band]))));
  if (field.kind === "band_values")                 // {band: value} over the field's bands
    return el("fieldset", attrs, el("legend", {}, label), field.choices.map((band) => el("label", {},
      words(band), el("input", { type: "number", step: "any", name: band, value: (v || {})[band] ?? "" }))));
  return el("label", attrs, label, el("input", { name: n, value: v == null ? "" : JSON.stringify(v) }));
}

const num = (input) => (input && input.value !== "" ? Number(input.value) : undefined);

// The value a field's input holds (undefined: left empty).
export function fieldValue(field, node) {
  const one = (name) => node.querySelector(`[name="${name}"]`);
  const k = field.kind;
  if (k === "integer" || k === "number") return num(one(field.name));
  if (k === "text") return one(field.name).value.trim() || undefined;
  if (k === "names") {
    const names = one(field.name).value.split(",").map((s) => s.trim()).filter(Boolean);
    return names.length ? names : undefined;
  }
  if (k === "bool") return one(field.name).checked || undefined;
  if (k === "choice") return one(field.name).value || undefined;
  if (k === "choices") {
    const on = [...node.querySelectorAll("input:checked")].map((c) => c.value);
    return on.length ? on : undefined;
  }
  if (k === "range") {
    const [a, b] = [num(one(`${field.name}.0`)), num(one(`${field.name}.1`))];
    return a === undefined || b === undefined ? undefined : [a, b];
  }
  if (k === "bands") {
    const out = {};
    for (const row of node.querySelectorAll("[data-band]")) {
      const band = row.dataset.band, a = num(one(`${band}.0`)), b = num(one(`${band}.1`));
      if (a !== undefined && b !== undefined) out[band] = [a, b];
    }
    return Object.keys(out).length ? out : undefined;
  }
  if (k === "band_values") {
    const out = {};
    for (const band of field.choices) { const x = num(one(band)); if (x !== undefined) out[band] = x; }
    return Object.keys(out).length ? out : undefined;
  }
  const text = one(field.name).value.trim();
  return text ? JSON.parse(text) : undefined;
}

// The values of every field of `fields` found under `root`, as {name: value} (empty ones left out).
export function fieldValues(fields, root) {
  const out = {};
  for (const field of fields) {
    const node = root.querySelector(`[data-field="${field.name}"]`);
    const value = node ? fieldValue(field, node) : undefined;
    if (value !== undefined) out[field.name] = value;
  }
  return out;
}
