// The Game set-up page: start a new game (a rule system, a saved scenario or an empty board, the players,
// a saved army for each) and end the one on the table (POST /api/games, /api/games/end).
import { attempt, confirmed, el, getJSON, send } from "./api.js";

const $ = (id) => document.getElementById(id);
let systems = null;

export async function rulesets() {
  systems ??= (await getJSON("/api/rulesets")).rulesets;
  return systems;
}

const players = (form) => form.elements.players.value.split(",").map((p) => p.trim()).filter(Boolean);

// Fill the form's choices: the rule systems, and the scenarios and armies saved for the chosen one.
export async function renderGames(app) {
  const form = $("game-form");
  const chosen = form.elements.ruleset.value || app.state?.scene.ruleset;
  const [all, { scenarios }, { armies }] = await Promise.all([rulesets(), getJSON("/api/scenarios"),
                                                              getJSON("/api/armies")]);
  form.elements.ruleset.replaceChildren(...all.map((r) => el("option", { value: r.name, selected: r.name === chosen },
    r.title || r.name)));
  const system = form.elements.ruleset.value;
  form.elements.scenario.replaceChildren(el("option", { value: "" }, "Empty board"),
    ...scenarios.filter((s) => s.ruleset === system).map((s) => el("option", { value: s.name }, s.title)));
  const mine = armies.filter((a) => a.ruleset === system);
  $("game-armies").replaceChildren(...players(form).map((p) => el("label", {}, `Army of ${p}`,
    el("select", { name: "army", "data-player": p }, el("option", { value: "" }, "none (build it after)"),
      mine.map((a) => el("option", { value: a.name, selected: a.player === p }, `${a.title} (${a.units} units)`))))));
  const s = app.state?.status || {};
  $("game-now").textContent = `On the table: game ${s.game ?? "?"} (${app.state?.scene.ruleset ?? "?"})`
    + (s.game_over ? ", over" : "");
}

export function setupGames(app) {
  const form = $("game-form");
  form.elements.ruleset.addEventListener("change", () => renderGames(app));
  form.elements.players.addEventListener("change", () => renderGames(app));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const body = { ruleset: form.elements.ruleset.value, players: players(form),
                   armies: [...form.querySelectorAll("select[name=army]")].filter((s) => s.value)
                     .map((s) => ({ name: s.value, player: s.dataset.player })) };
    if (form.elements.scenario.value) body.scenario = form.elements.scenario.value;
    if (!(await confirmed(`End the game on the table and start a new ${body.ruleset} game?`, "New game"))) return;
    if (await attempt(() => send("POST", "/api/games", body), "New game started")) location.hash = "#setup/army";
  });
  $("end-game").addEventListener("click", async () => {
    if (await confirmed("End the game on the table? It stays in the log.", "End game"))
      attempt(() => send("POST", "/api/games/end", {}), "Game over");
  });
}
