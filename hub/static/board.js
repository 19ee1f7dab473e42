// One table's board, read-only: terrain and models from its retained state, polled from the hub.
const NS = "http://www.w3.org/2000/svg";
const MM = 1 / 25.4;
const COLOURS = ["#4da3ff", "#ffb020", "#c77dff", "#5be49b"];
const TRAITS = ["impassable", "heavy_cover", "light_cover", "water", "elevated"];
const tableId = document.querySelector("main").dataset.table;

function s(tag, attrs = {}, text) {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function radius(model) {
  const base = model.base || { shape: "circle", diameter_mm: 25 };
  return ((base.shape === "circle" ? base.diameter_mm : Math.max(base.width_mm, base.depth_mm)) || 25) * MM / 2;
}

function draw(scene) {
  const svg = document.getElementById("board");
  const { width = 48, height = 48 } = scene.board || {};
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const players = [...new Set((scene.units || []).map((u) => String(u.player)))].sort();
  const colour = (unitId) => {
    const unit = (scene.units || []).find((u) => u.id === unitId) || {};
    return COLOURS[Math.max(0, players.indexOf(String(unit.player))) % COLOURS.length];
  };
  const nodes = [];
  for (const piece of scene.terrain || []) {
    const trait = TRAITS.find((t) => (piece.traits || []).includes(t)) || "plain";
    nodes.push(s("polygon", { class: `terrain ${trait}`, points: piece.polygon.map((p) => p.join(",")).join(" ") }));
  }
  const labelled = new Set();                 // one label per unit, at its first model
  for (const model of scene.models || []) {
    if (model.x == null || model.y == null) continue;
    const r = radius(model);
    const g = s("g", { class: `model ${model.state || "tracked"}`, "data-model": model.id,
                       transform: `translate(${model.x} ${model.y}) rotate(${model.heading || 0})` });
    g.append(s("circle", { class: "base", r, fill: colour(model.unit) }),
             s("line", { class: "heading", x1: 0, y1: 0, x2: r, y2: 0 }));
    nodes.push(g);
    if (!labelled.has(model.unit)) {
      labelled.add(model.unit);
      nodes.push(s("text", { class: "ulabel", x: model.x, y: model.y - r - 0.4, "text-anchor": "middle" },
                   model.unit ?? model.id));
    }
  }
  svg.replaceChildren(...nodes);
}

async function refresh() {
  try {
    const table = await fetch(`/api/tables/${encodeURIComponent(tableId)}`).then((r) => r.json());
    if (table.error) throw new Error(table.error);
    document.getElementById("live").classList.toggle("on", table.online);
    const turn = table.turn == null ? "" : ` · turn ${table.turn} · ${table.phase ?? ""}`;
    document.getElementById("whose").textContent = `${table.online ? "online" : table.available}${turn}`;
    if (table.state) draw(table.state.scene || {});
    document.getElementById("warnings").replaceChildren(...table.warnings.map((w) => {
      const p = document.createElement("p");
      p.className = "warning";
      p.textContent = `${w.acknowledged ? "✓ " : ""}${w.message}`;
      return p;
    }));
    const log = await fetch(`/api/tables/${encodeURIComponent(tableId)}/events?after=${Math.max(0, table.last_seq - 30)}`)
      .then((r) => r.json());
    document.getElementById("events").replaceChildren(...log.events.reverse().map((e) => {
      const li = document.createElement("li");
      li.textContent = `#${e.seq} ${e.text ?? e.kind}`;
      return li;
    }));
  } catch (err) {
    document.getElementById("whose").textContent = `not available: ${err.message}`;
  }
}

refresh();
setInterval(refresh, 1000);
