// Syniad on the phone (the rule system's panel module, `Ruleset.panel_script`): pick a target hex, add
// attackers, resolve or cancel; the Combat Details, the instructions for the counters and what the
// camera disagrees with, from snapshot.phase.syniad. The panel calls `render(app, box)` on each state
// and `tap(app, hex)` on a board tap.
import { attempt, el, kv, send } from "/static/js/api.js";

const act = (action, extra = {}) => send("POST", "/api/syniad", { action, ...extra });
const hexText = (h) => (h ? `[${h[0]}, ${h[1]}]` : "—");

// A board tap while picking a target: the tapped hex becomes the target. True when it was used.
export function tap(app, hex) {
  if (!app.syniadPick) return false;
  app.syniadPick = false;
  attempt(() => act("select_target", { hex }), `Target ${hexText(hex)}`);
  return true;
}

function button(label, cls, onClick) {
  return el("button", { type: "button", class: cls, on: { click: onClick } }, label);
}

export function render(app, box) {
  const view = app.state?.phase?.syniad;
  box.hidden = !view;
  if (!view) { app.syniadPick = false; return; }
  const d = view.details || {};
  const parts = [el("h3", {}, `Syniad · ${view.phase}`, el("small", {}, ` · player ${view.player}`))];
  if (view.phase === "combat") {
    parts.push(el("h4", {}, "Combat Details"));
    parts.push(kv([
      ["target", hexText(d.target)],
      ["defenders", (d.defenders || []).join(", ") || "—"],
      ["attackers", (d.attackers || []).join(", ") || "—"],
      ["points", d.target ? `${d.attacking_points ?? 0} attacking · ${d.defending_points ?? 0} defending` : "—"],
    ]));
    const row = [button(app.syniadPick ? "Tap the target hex…" : "Pick target hex", "", () => {
      app.syniadPick = !app.syniadPick; render(app, box);
    })];
    for (const unit of d.eligible || []) {
      row.push(button(`Add ${unit}`, "", () => attempt(() => act("add_attacker", { unit }), `${unit} attacks`)));
    }
    if (d.target && (d.attackers || []).length) {
      row.push(button("Resolve", "primary", () => attempt(async () => {
        if (d.action !== "resolveAttack") await act("select_target", { hex: d.target });   // done adding
        return act("resolve");
      }, "Combat resolved")));
    }
    if (d.target) row.push(button("Cancel", "", () => attempt(() => act("cancel"), "Combat cancelled")));
    parts.push(el("div", { class: "chips", id: "syniad-actions" }, row));
  }
  const last = view.last_result;
  if (last) {
    parts.push(el("h4", {}, `Last combat: ${hexText(last.target)} · ${last.winner} wins`));
    parts.push(kv([["points", `${last.attacking_points} attacking · ${last.defending_points} defending`]]));
  }
  if ((view.instructions || []).length) {
    parts.push(el("h4", {}, "Move the counters"));
    parts.push(el("ol", { id: "syniad-instructions" }, view.instructions.map((i) => el("li", {}, i.text))));
  }
  if ((view.mismatches || []).length) {
    parts.push(el("h4", {}, "The camera sees otherwise"));
    parts.push(el("ul", { id: "syniad-mismatches" }, view.mismatches.map((m) => el("li", {}, m.text))));
  }
  box.replaceChildren(el("div", { id: "syniad" }, ...parts));
}
