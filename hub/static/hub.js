// The dashboard: every table (polled from /api/tables) and the recent events of all tables.
const COLOURS = ["#4da3ff", "#ffb020", "#c77dff", "#5be49b"];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const child of children) node.append(child);
  return node;
}

function card(table) {
  const classes = ["card", table.online ? "online" : "offline"];
  if (table.open_disputes) classes.push("disputed");
  const link = el("a", { class: classes.join(" "), href: `/tables/${encodeURIComponent(table.id)}`,
                         "data-table": table.id });
  link.append(el("h3", {}, el("span", { class: `dot${table.online ? " on" : ""}` }), table.id,
                 el("small", {}, table.online ? "online" : table.available)));
  const kv = el("dl", { class: "kv" });
  const turn = table.turn == null ? "–" : `turn ${table.turn} · ${table.phase ?? ""}`;
  for (const [k, v] of [["rules", table.ruleset ?? "–"], ["turn", turn], ["to play", table.player ?? "–"],
                        ["events", `${table.events}`], ["disputes", `${table.open_disputes}`]]) {
    kv.append(el("dt", {}, k), el("dd", {}, v));
  }
  link.append(kv);
  const chips = el("div", { class: "chips" });
  table.players.forEach((p, i) => {
    const chip = el("span", { class: "chip" }, `player ${p}`);
    chip.style.setProperty("--c", COLOURS[i % COLOURS.length]);
    chips.append(chip);
  });
  link.append(chips);
  for (const w of table.warnings.filter((w) => !w.acknowledged)) link.append(el("p", { class: "warning" }, w.message));
  const refused = table.rejected;
  if (refused.count) {
    const last = refused.recent[0] || {};
    link.append(el("p", { class: "refused" }, `refused ${refused.count} message${refused.count === 1 ? "" : "s"}` +
                   (last.reason ? ` (last: ${last.reason}: ${last.error})` : "")));
  }
  const conflicts = table.conflicts;
  if (conflicts.count) {
    const seqs = conflicts.seqs.slice(0, 5).map((s) => `#${s}`).join(" ");
    link.append(el("p", { class: "refused" }, `${conflicts.count} seq${conflicts.count === 1 ? "" : "s"} came ` +
                   `again with a different event (the first kept): ${seqs}${conflicts.count > 5 ? " …" : ""}`));
  }
  return link;
}

function status(tables) {
  if (!tables.listener.alive) return "not listening: the hub's MQTT thread is down";
  if (!tables.connected) return "broker not reached";
  const online = tables.tables.filter((t) => t.online).length;
  return `${online} of ${tables.tables.length} tables online`;
}

function eventLine(event) {
  const when = new Date(event.ts * 1000).toLocaleTimeString();
  return el("li", { "data-seq": event.seq }, el("time", {}, when), el("span", { class: "table" }, event.table),
            `#${event.seq} ${event.text ?? event.kind}`);
}

async function refresh() {
  try {
    const [tables, events] = await Promise.all([fetch("/api/tables").then((r) => r.json()),
                                                fetch("/api/events?limit=40").then((r) => r.json())]);
    document.getElementById("live").classList.toggle("on", tables.connected);
    document.getElementById("whose").textContent = status(tables);
    document.getElementById("count").textContent = `${tables.tables.length}`;
    document.getElementById("tables").replaceChildren(...tables.tables.map(card));
    document.getElementById("events").replaceChildren(...events.events.map(eventLine));
  } catch (err) {
    document.getElementById("live").classList.remove("on");
    document.getElementById("whose").textContent = "hub not reached";
  }
}

refresh();
setInterval(refresh, 1000);
