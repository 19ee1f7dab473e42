// Talking to the table: reads are open; changes carry the PIN (asked once, kept on this phone).
// A request waits for its answer as long as the table is heard (live.js's heartbeat watchdog ends it when
// the table falls silent); a slow answer from a table that is alive is waited for, up to LAST_RESORT_S.
const PIN_KEY = "smarttable-pin";
const LAST_RESORT_S = 120;     // one request's longest wait for the whole answer, heartbeats or not
const RETRY_AFTER_S = 10;      // the longest Retry-After waited out before asking again
const RETRIES = 2;             // a 429 or 503 with Retry-After is asked again this many times (reads)
const waiting = new Set();     // the requests waiting for the table: aborted when it falls silent
let silence = null;            // why the table is not answering (live.js's heartbeat watchdog), or null

// The table stopped answering (`why`), or answers again (null): waiting requests end with `why`, and new
// ones fail at once rather than wait for a table that cannot answer.
export function tableSilent(why) {
  silence = why;
  if (why) for (const abort of waiting) abort(why);
}

const failure = (message) => Object.assign(new Error(message), { field: "", connection: true });
const sleep = (s) => new Promise((resolve) => { setTimeout(resolve, s * 1000); });

// One request and its answer read whole, within LAST_RESORT_S: {response, data}.
async function call(url, options) {
  if (silence) throw failure(silence);
  const controller = new AbortController();
  let why = null;
  const abort = (reason) => { why = reason; controller.abort(); };
  const timer = setTimeout(() => abort(`The table did not answer within ${LAST_RESORT_S} s: it may be busy or ` +
    "out of reach. Try again."), LAST_RESORT_S * 1000);
  waiting.add(abort);
  try {
    const response = await fetch(url, { ...options, signal: controller.signal });
    const data = await response.json().catch(() => ({ error: response.statusText, field: "" }));
    return { response, data };
  } catch (error) {
    throw failure(why || `The table could not be reached (${error.message}).`);
  } finally {
    clearTimeout(timer);
    waiting.delete(abort);
  }
}

// Seconds a 429 or 503 asks to wait (its Retry-After), or null.
function retryAfter(response) {
  const s = Number(response.headers.get("Retry-After"));
  return (response.status === 429 || response.status === 503) && s > 0 && s <= RETRY_AFTER_S ? s : null;
}

export async function getJSON(url) {
  for (let attempt = 0; ; attempt++) {
    const { response, data } = await call(url, { headers: { Accept: "application/json" } });
    const wait = retryAfter(response);
    if (wait !== null && attempt < RETRIES) { await sleep(wait); continue; }
    if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), data);
    return data;
  }
}

// Ask for the PIN; `why` says what went wrong with the last one (shown above the field).
function askPin(why = "") {
  const dialog = document.getElementById("pin-dialog");
  const input = document.getElementById("pin-input");
  const problem = document.getElementById("pin-problem");
  problem.textContent = why;
  problem.hidden = !why;
  input.value = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok" ? input.value.trim() : null),
      { once: true });
    dialog.showModal();
  });
}

// A new idempotency key for each change (a tap): the table makes the change once, however often it is
// sent with this key (crypto.getRandomValues works on the plain-HTTP LAN page; randomUUID does not).
function newKey() {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");
}

// Send a change; ask for the PIN when none is kept or the table refuses it. A request that gets no answer
// (the network dropped it) is sent again with the same key, so the table applies it once.
export async function send(method, url, body) {
  if (document.body.classList.contains("offline"))
    throw new Error("Offline: the table cannot be reached, so nothing was changed. Try again when it is back.");
  let refused = "";
  const key = newKey();
  for (let attempt = 0, lost = 0; attempt < 3; attempt++) {
    let pin = localStorage.getItem(PIN_KEY);
    if (!pin) {
      pin = await askPin(refused);
      if (!pin) throw new Error("cancelled");
      localStorage.setItem(PIN_KEY, pin);
    }
    let answered;
    try {
      answered = await call(url, {
        method, headers: { "Content-Type": "application/json", "X-Table-PIN": pin, "Idempotency-Key": key },
        body: JSON.stringify(body ?? {}),
      });
    } catch (error) {
      // no answer: send it once more with the same key (the table makes it once), unless the table is silent
      if (!silence && lost++ === 0) { await sleep(1); attempt--; continue; }
      throw failure(`${error.message} If the change reached the table, the board shows it once the table is back.`);
    }
    const { response, data } = answered;
    const wait = response.status === 429 ? retryAfter(response) : null;     // refused, so not applied
    if (wait !== null && attempt < 2) { await sleep(wait); continue; }
    if (response.status === 401 || response.status === 403) {
      localStorage.removeItem(PIN_KEY);
      refused = `The table did not take PIN ${pin}: ${data.error || "wrong PIN"}. Try again.`;
      continue;
    }
    if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), data);
    return data;
  }
  throw new Error("Wrong PIN: the table refused it three times, so nothing was changed.");
}

export function toast(message, ok = false) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.className = ok ? "ok" : "";
  box.hidden = false;
  clearTimeout(box._timer);
  box._timer = setTimeout(() => { box.hidden = true; }, 3500);
}

// Run an action and show its error (naming the field) instead of failing silently.
export async function attempt(action, done) {
  try {
    const result = await action();
    // applied, but the game log could not store it yet: say so (the banner stays until it is saved)
    if (result && result.saved === false) toast(`Done, but not saved yet: ${result.saving}`);
    else if (done) toast(done, true);
    return result;
  } catch (error) {
    if (error.message !== "cancelled") toast(error.field ? `${error.field}: ${error.message}` : error.message);
    return null;
  }
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "on") for (const [ev, fn] of Object.entries(value)) node.addEventListener(ev, fn);
    else if (key === "style") node.style.cssText = value;        // CSSOM: allowed by the page's CSP
    else if (value !== undefined && value !== null && value !== false) node.setAttribute(key, value);
  }
  for (const child of children.flat()) if (child !== null && child !== undefined) node.append(child);
  return node;
}

export function kv(pairs) {
  return el("dl", { class: "kv" }, pairs.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

// Ask before a change that matters ("End the movement phase?"); resolves true for yes.
export function confirmed(question, yes) {
  const dialog = document.getElementById("confirm-dialog");
  document.getElementById("confirm-text").textContent = question;
  dialog.querySelector("button[value=ok]").textContent = yes;
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok"), { once: true });
    dialog.showModal();
  });
}
