// The game log, newest first; export is a plain download of JSON lines.
import { el, getJSON } from "./api.js";

const seen = { last: 0, entries: [] };

// One readable line: dice as their faces, nested answers one level deep, empty parts left out.
function value(v) {
  if (Array.isArray(v)) return v.map((d) => (d && typeof d === "object" && "value" in d ? d.value : value(d))).join(" ");
  if (v && typeof v === "object") return describe(v);
  return typeof v === "number" && !Number.isInteger(v) ? v.toFixed(2) : String(v);
}

function describe(entry) {
  return Object.entries(entry)
    .filter(([k, v]) => !["seq", "ts", "time", "kind", "game"].includes(k) && v !== null && v !== "" && k !== "scene")
    .map(([k, v]) => `${k.replace(/_/g, " ")}: ${value(v)}`).join(" · ");
}

export async function refreshLog() {
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
  const items = seen.entries.slice(-300).reverse().map((e) => el("li", {},
    el("time", {}, (e.ts ?? e.time) ? new Date((e.ts ?? e.time) * 1000).toLocaleTimeString() : ""),
    el("strong", {}, e.kind || "event"), " ", describe(e)));
  document.getElementById("log").replaceChildren(...items);
}
