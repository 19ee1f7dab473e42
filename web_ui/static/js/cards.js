// A unit's card facts from the scene (its stats, weapons, wounds) and the rule system's victory tracker.
import { el } from "./api.js";

const words = (key) => String(key).replace(/_/g, " ");
const num = (n) => (typeof n === "number" && !Number.isInteger(n) ? n.toFixed(1) : String(n));

// One weapon in a line: its name, then each fact ("range 6–12", "ap 3/2/2/0", "hot 0–12"", "indirect").
function weaponLine(weapon) {
  const facts = Object.entries(weapon).filter(([k]) => k !== "name").flatMap(([k, v]) => {
    if (v === true) return [words(k)];
    if (v === false || v === null) return [];
    if (Array.isArray(v)) return [`${words(k)} ${k === "range" && v.length === 2 ? v.map(num).join("–") : v.map(num).join("/")}`];
    if (typeof v === "object") {
      return Object.entries(v).map(([b, r]) => `${words(b)} ${Array.isArray(r) ? `${r.map(num).join("–")}"` : num(r)}`);
    }
    return [`${words(k)} ${num(v)}`];
  });
  return `${weapon.name || "weapon"}${facts.length ? `: ${facts.join(" · ")}` : ""}`;
}

// Rows for the unit card: stats, weapons (one line each), each model's wounds where the scene has them.
export function unitFacts(scene, unit) {
  const rows = [];
  const stats = Object.entries(unit.stats || {});
  if (stats.length) rows.push(["stats", stats.map(([k, v]) => `${words(k)} ${num(v)}`).join(" · ")]);
  const weapons = unit.weapons || [];
  if (weapons.length) rows.push(["weapons", el("ul", { class: "weapons" }, weapons.map((w) => el("li", {}, weaponLine(w))))]);
  const models = (scene.models || []).filter((m) => m.unit === unit.id);
  const wounded = models.filter((m) => typeof m.wounds === "number");
  if (wounded.length) rows.push(["wounds", wounded.map((m) => `${m.id} ${num(m.wounds)}`).join(" · ")]);
  const placed = models.filter((m) => typeof m.x === "number").length;
  if (models.length) rows.push(["models", `${placed} of ${models.length} on the table`]);
  return rows;
}

// The victory tracker (a `victory` answer): each player's bases left of those they started with, who is
// beaten, and the result once the battle is over.
export function renderVictory(box, answer) {
  box.hidden = !answer;
  if (!answer) return;
  const rows = (answer.players || []).map((p) => el("li", { "data-player": p.player },
    `Player ${p.player}: ${p.remaining} of ${p.started} bases left${p.beaten ? " — beaten" : ""}`));
  const result = !answer.over ? "The battle goes on." : answer.draw ? "The battle is over: a draw."
    : `The battle is over: Player ${answer.winner} wins.`;
  box.replaceChildren(el("h3", {}, "Victory"), el("ul", { class: "list" }, rows), el("p", { class: "result" }, result));
}
