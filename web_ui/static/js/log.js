// The game log, newest first, as sentences a player reads; export is a plain download of JSON lines.
import { el, getJSON } from "./api.js";

const seen = { last: 0, entries: [] };
const words = (s) => String(s ?? "").replace(/_/g, " ");
const inches = (v) => `${Number(v).toFixed(1)}"`;
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// A leftover answer or parameter as short text: dice as their faces, nested parts one level deep.
function value(v) {
  if (Array.isArray(v)) return v.map((d) => (d && typeof d === "object" && "value" in d ? d.value : value(d))).join(" ");
  if (v && typeof v === "object") return describe(v);
  return typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : String(v);
}

function describe(entry) {
  return Object.entries(entry)
    .filter(([k, v]) => !["seq", "ts", "time", "kind", "game"].includes(k) && v !== null && v !== "" && k !== "scene")
    .map(([k, v]) => `${words(k)}: ${value(v)}`).join(" · ");
}

function who(scene, modelId) {
  const model = (scene?.models || []).find((m) => m.id === modelId);
  const unit = (scene?.units || []).find((u) => u.id === model?.unit);
  return unit?.name ? `${unit.name} (${modelId})` : String(modelId);
}

// One sentence per kind of event; anything else is described field by field.
const SENTENCES = {
  game_start: (e) => `New game: ${words(e.scene?.ruleset)}, ${(e.scene?.models || []).length} models.`,
  phase: (e) => (e.phase ? `${cap(words(e.phase))} phase${e.turn != null ? `, turn ${e.turn}` : ""}`
    + `${e.player != null ? `, player ${e.player}` : ""}.` : "Next phase."),
  move: (e, scene) => `${who(scene, e.model)} ${e.placement ? "was placed" : `moved ${inches(e.distance)}`}`
    + `${e.heading != null ? `, facing ${Math.round(e.heading)}°` : ""}.`,
  select: (e, scene) => (e.model ? `${who(scene, e.model)} selected${e.by ? ` by the ${e.by}` : ""}.` : "Selection cleared."),
  target: (e) => (e.target ? `Target: ${e.target}.` : "Target cleared."),
  roll: (e) => `Rolled ${e.label || words(e.roll)}: ${value(e.result?.dice ?? e.result)}`
    + `${e.result?.successes != null ? ` (${e.result.successes} successes)` : ""}.`,
  bookmark: (e) => `Bookmark ${e.id}: ${words(e.question)} ${(e.between || []).map((x) => (Array.isArray(x)
    ? `(${x.map((v) => Number(v).toFixed(1)).join(", ")})` : x)).join(" → ")}, ${e.text}`
    + `${e.too_close_to_call ? ", too close to call" : ""}.`,
  measure: (e) => `Measured ${words(e.question)} ${(e.args || []).join(" → ")}: ${describe(e.answer || {})}.`,
  warning: (e) => `Warning: ${e.message || words(e.warning)}.`,
  warning_cleared: (e) => `Warning cleared: ${e.id}.`,
  acknowledge: (e) => `Warning acknowledged: ${e.id}.`,
  camera: (e) => `Camera ${e.status}${e.detail ? `: ${e.detail}` : ""}.`,
  undo: () => "The last change was taken back.",
  confirm: () => "Activation confirmed.",
  terrain: (e) => `Terrain changed: ${(e.terrain || []).map((t) => t.id).join(", ") || "none"}.`,
  marker: (e) => (e.marker != null ? `Marker ${e.marker} assigned to ${e.model}.` : `Marker taken off ${e.model}.`),
  settings: (e) => `Settings changed: ${describe(e)}.`,
  weapon: (e) => `${e.unit} shows ${e.weapon ?? "its default weapon"}.`,
};

export function sentence(entry, scene) {
  const write = SENTENCES[entry.kind];
  return write ? write(entry, scene) : `${cap(words(entry.kind || "event"))}: ${describe(entry)}`;
}

export async function refreshLog(scene) {
  try {
    for (;;) {
      const { entries } = await getJSON(`/api/log?after=${seen.last}&limit=500`);
      if (!entries.length) break;
      seen.entries.push(...entries);
      seen.last = entries.at(-1).seq ?? seen.last + entries.length;
      if (entries.length < 500) break;
    }
  } catch (error) {
    document.getElementById("log").replaceChildren(el("li", {}, error.message));
    return;
  }
  const items = seen.entries.slice(-300).reverse().map((e) => el("li", { "data-kind": e.kind || "event" },
    el("time", {}, (e.ts ?? e.time) ? new Date((e.ts ?? e.time) * 1000).toLocaleTimeString() : ""),
    " ", sentence(e, scene)));
  document.getElementById("log").replaceChildren(...items);
}
