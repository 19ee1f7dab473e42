// Talking to the table: reads are open; changes carry the PIN (asked once, kept on this phone).
const PIN_KEY = "smarttable-pin";

export async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json" } });
  const data = await response.json().catch(() => ({ error: response.statusText, field: "" }));
  if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), data);
  return data;
}

function askPin() {
  const dialog = document.getElementById("pin-dialog");
  const input = document.getElementById("pin-input");
  input.value = "";
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "ok" ? input.value.trim() : null),
      { once: true });
    dialog.showModal();
  });
}

// Send a change; ask for the PIN when none is kept or the table refuses it.
export async function send(method, url, body) {
  if (document.body.classList.contains("offline"))
    throw new Error("Offline: the table cannot be reached, so nothing was changed. Try again when it is back.");
  for (let attempt = 0; attempt < 3; attempt++) {
    let pin = localStorage.getItem(PIN_KEY);
    if (!pin) {
      pin = await askPin();
      if (!pin) throw new Error("cancelled");
      localStorage.setItem(PIN_KEY, pin);
    }
    const response = await fetch(url, {
      method, headers: { "Content-Type": "application/json", "X-Table-PIN": pin },
      body: JSON.stringify(body ?? {}),
    });
    const data = await response.json().catch(() => ({ error: response.statusText, field: "" }));
    if (response.status === 401 || response.status === 403) { localStorage.removeItem(PIN_KEY); continue; }
    if (!response.ok) throw Object.assign(new Error(data.error || response.statusText), data);
    return data;
  }
  throw new Error("wrong PIN");
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
    if (done) toast(done, true);
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
