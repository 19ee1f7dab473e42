// The game log, newest first, as sentences a player reads (each entry's `text`: the table's one set of
// sentences, as the replay and the club hub show them); export is a plain download of JSON lines.
import { el, getJSON } from "./api.js";

const seen = { last: 0, entries: [] };

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
  const items = seen.entries.slice(-300).reverse().map((e) => el("li", { "data-kind": e.kind || "event" },
    el("time", {}, (e.ts ?? e.time) ? new Date((e.ts ?? e.time) * 1000).toLocaleTimeString() : ""),
    " ", e.text ?? e.kind ?? "event"));
  document.getElementById("log").replaceChildren(...items);
}
