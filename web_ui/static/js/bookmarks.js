// Dispute bookmarks (docs/web.md#dispute-bookmarks): one tap on the measure card keeps the evidence of that
// measurement; the Log page lists them (time, what was measured, the answer with its error) with an export link.
import { attempt, el, getJSON, send } from "./api.js";

const words = (s) => String(s ?? "").replace(/_/g, " ");
const end = (x) => (Array.isArray(x) ? `(${x.map((v) => Number(v).toFixed(1)).join(", ")})` : String(x));

// Keep a bookmark of `what` ({a, b}: two models or units; {ruler: true}: the shared ruler).
export function takeBookmark(what) {
  return attempt(async () => {
    const { result } = await send("POST", "/api/bookmarks", what);
    refreshBookmarks();
    return result.bookmark;
  }, "Bookmarked: the evidence is kept (Log, Bookmarks)");
}

// The measure card's Bookmark button for the two models (or units) it measures.
export function bookmarkButton(a, b) {
  return el("button", { type: "button", class: "changes", id: "bookmark",
                        on: { click: () => takeBookmark({ a, b }) } }, "Bookmark");
}

function item(b) {
  const when = new Date(b.time * 1000).toLocaleTimeString();
  return el("li", { "data-bookmark": String(b.id) },
    el("div", {}, el("time", {}, when), ` Bookmark ${b.id}: ${words(b.question)} ${b.between.map(end).join(" → ")}`,
      el("div", { class: "big bookmark-answer" }, b.text),
      b.too_close_to_call ? el("div", { class: "hint close-call" }, "too close to call — measure by hand") : null),
    el("a", { class: "button", href: `/api/bookmarks/${b.id}/export?download=1`, download: `bookmark-${b.id}.html` },
      "Export"));
}

// The Bookmarks list, newest first ("none yet" when there are none; a table without bookmarks says so).
export async function refreshBookmarks() {
  const list = document.getElementById("bookmarks");
  try {
    const { bookmarks } = await getJSON("/api/bookmarks");
    list.replaceChildren(...(bookmarks.length ? bookmarks.slice().reverse().map(item)
      : [el("li", { class: "hint" }, "None yet: tap Bookmark on a measurement (or hold the table's measure button).")]));
  } catch (error) {
    list.replaceChildren(el("li", { class: "hint" }, error.message));
  }
}
