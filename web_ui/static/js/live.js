// The live connection to the table (docs/web.md "Live updates"): server-sent events, a heartbeat
// watchdog, reconnection with back-off, and the offline state every phone shows the same way.
import { getJSON, tableSilent } from "./api.js";

const $ = (id) => document.getElementById(id);
const FIRST_BEAT_S = 5;        // the table's heartbeat until it says its own (its first event does)
const MIN_SILENCE_S = 8;       // never offline sooner, however short the heartbeat (a loaded table is late)
const TICK_MS = 250;           // the watchdog's beat; a late one counts for at most 1 s of silence
const RETRY_S = [1, 10];       // reconnecting: 1 s, then twice as long each time, at most 10 s (jittered)

// The state after a patch event (web_ui/sse.py `part_patch` / `apply_part`): a dict's changed keys
// merged, a list's changed items set, each patched in turn; anything else replaced.
function applyPart(old, part) {
  if (part && typeof part === "object" && "$patch" in part) {
    const value = { ...old };
    for (const [key, inner] of Object.entries(part.$patch)) value[key] = applyPart(old?.[key], inner);
    for (const gone of part.$gone || []) delete value[gone];
    return value;
  }
  if (part && typeof part === "object" && "$set" in part) {
    const items = [...old];
    for (const [index, inner] of part.$set) items[index] = applyPart(items[index], inner);
    return items;
  }
  return part;
}

function patched(state, message) {
  const next = { ...state, seq: message.seq };
  for (const [key, part] of Object.entries(message.parts)) next[key] = applyPart(state[key], part);
  return next;
}

// Follow the table: `apply(state)` for every state it sends. The stream is given up and opened again
// when it fails (a 429 or 503 included: EventSource itself never retries those) and when nothing at all
// (no state, no heartbeat) came for twice the heartbeat's interval and at least MIN_SILENCE_S (a frozen
// table or a dead network keeps the TCP connection open, so only silence tells). Silence is counted by the
// watchdog's own ticks, each at most 1 s: a phone too busy to run its timers (or a tab in the background)
// has not heard the table because it was not listening, which says nothing of the table.
export function connect(app, apply) {
  let source = null, beatS = FIRST_BEAT_S, quietMs = 0, waitS = RETRY_S[0], retry = null;
  const silenceS = () => Math.max(2 * beatS, MIN_SILENCE_S);
  const alive = () => {
    quietMs = 0; waitS = RETRY_S[0]; tableSilent(null);
    if (!app.online) setOnline(app, apply, true);
  };
  const lost = (silent) => {
    source?.close(); source = null;
    if (silent) tableSilent(`The table stopped answering (nothing heard from it for ${silenceS()} s): it may ` +
      "have frozen or lost its network.");
    setOnline(app, apply, false);
    if (retry === null) {
      retry = setTimeout(open, waitS * (0.75 + Math.random() / 2) * 1000);
      waitS = Math.min(2 * waitS, RETRY_S[1]);
    }
  };
  const open = () => {
    retry = null; quietMs = 0;
    source = new EventSource("/api/events?patch=1");        // whole state first, then what changed
    source.addEventListener("heartbeat", (event) => {
      beatS = JSON.parse(event.data).every_s || beatS;
      alive();
    });
    source.addEventListener("state", (event) => {
      alive();
      const message = JSON.parse(event.data);
      if (message.state) apply(message.state);
      else if (message.parts && app.state && message.base === app.seq) apply(patched(app.state, message));
      else getJSON("/api/state").then(apply).catch(() => {});   // a patch to a state this phone lacks: re-read
    });
    source.addEventListener("error", (event) => {
      if (event.target !== source) return;
      if (source.readyState === EventSource.CLOSED) lost(false);   // refused or failed: we try again
      else setOnline(app, apply, false);                          // the browser reconnects by itself
    });
  };
  let tick = performance.now();
  setInterval(() => {
    const now = performance.now();
    quietMs += Math.min(now - tick, 1000);
    tick = now;
    if (source && quietMs > silenceS() * 1000) lost(true);
  }, TICK_MS);
  open();
}

// Offline: a banner over the board, the board dimmed, every change button disabled until the table is back.
export function setOnline(app, apply, online) {
  const back = online && !app.online;
  app.online = online;
  document.body.classList.toggle("offline", !online);
  $("live").classList.toggle("on", online);
  $("live").setAttribute("aria-label", online ? "live: connected to the table" : "offline: reconnecting");
  for (const button of document.querySelectorAll("button.changes, form.changes button[type=submit]"))
    button.disabled = !online;
  if (back) getJSON("/api/state").then(apply).catch(() => {});   // catch up on what was missed
}
