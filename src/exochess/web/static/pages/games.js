// @ts-check
// The games page: this browser's games (those whose turn is yours first, soonest deadline
// first) and the most recent ones.
import { getJSON } from "/static/api.js";
import { formatDuration } from "/static/clock.js";
import { colorName, loadSeat, myGameIds } from "/static/game.js";
import { pageLanguage, t } from "/static/i18n.js";
import { pageData } from "/static/pagedata.js";
const titles = Object.fromEntries(pageData("variants").map((/** @type {VariantInfo} */ v) => [v.name, v.title]));
/**
 * A finished or running game as /api/games lists it.
 * @typedef {{id: string, status: string, turn: "white" | "black", time_control: string,
 *   deadline: number | null, white: string, black: string, white_name: string | null,
 *   black_name: string | null, level: number, variant: string, updated: string, ply: number,
 *   result: string, reason: string | null}} GameRow
 */

/** @param {string} kind @param {number} level @param {string | null} name @returns {string} */
function who(kind, level, name) {
  if (kind !== "engine") return name || t("Human");
  if (name) return name; // a house bot's name: the computer at its level
  return level === 0 ? t("Computer (random)") : t("Computer (level {level})", { level });
}
// "Moves" counts moves as players do (a White move and Black's answer are one), not half-moves.
/** @param {number} ply */
function fullMoves(ply) { return Math.ceil(ply / 2); }
/** @param {GameRow} g @returns {string} */
function clockText(g) {
  const tc = g.time_control === "-" ? t("unlimited")
    : g.time_control.endsWith("d") ? t("{days} d/move", { days: g.time_control.slice(0, -1) }) : g.time_control;
  if (g.status !== "active" || g.deadline === null) return tc;
  return `${tc} · ` + t("{side}: {time} left", { side: colorName(g.turn), time: formatDuration(g.deadline - Date.now()) });
}
/** @param {GameRow} g @returns {boolean} */
function yourTurn(g) {
  const seat = loadSeat(g.id);
  return Boolean(seat && g.status === "active" && seat.color === g.turn && g[g.turn] === "human");
}
/** @param {GameRow[]} games @param {boolean} mine @returns {GameRow[]} */
function ordered(games, mine) {
  if (!mine) return games;
  // your turn first, the nearest deadline first among them; then the rest as the server sent them
  const turn = games.filter(yourTurn);
  turn.sort((a, b) => (a.deadline ?? Infinity) - (b.deadline ?? Infinity));
  return [...turn, ...games.filter((g) => !yourTurn(g))];
}
/** @param {HTMLElement} body @param {string} text */
function emptyRow(body, text) {
  const tr = document.createElement("tr");
  const td = document.createElement("td");
  td.colSpan = 8;
  td.textContent = text;
  tr.appendChild(td);
  body.replaceChildren(tr);
}
/** @param {any} table the page's table element @param {string} url @param {boolean} mine */
async function fill(table, url, mine) {
  const data = await getJSON(url);
  const body = table.querySelector("tbody");
  body.replaceChildren();
  if (!data.games.length) { emptyRow(body, t("No games yet.")); return; }
  // each cell carries its column's name: on a phone the rows become cards that show it
  const labels = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  for (const g of ordered(data.games, mine)) {
    const tr = document.createElement("tr");
    tr.dataset.game = g.id;
    const turn = mine && yourTurn(g);
    if (turn) tr.classList.add("your-turn");
    const when = new Date(g.updated).toLocaleString(pageLanguage());
    const result = g.status === "active" ? (turn ? t("your turn") : t("playing"))
      : g.status === "aborted" ? t("aborted") : `${g.result} — ${g.reason ? t(g.reason) : ""}`;
    const cells = [titles[g.variant] || g.variant, when, who(g.white, g.level, g.white_name), who(g.black, g.level, g.black_name),
      String(fullMoves(g.ply)), clockText(g), result];
    cells.forEach((c, i) => {
      const td = document.createElement("td"); td.textContent = c; td.dataset.label = labels[i]; tr.appendChild(td);
    });
    const td = document.createElement("td");
    td.className = "links";
    const open = document.createElement("a");
    open.href = `/game/${g.id}`;
    open.textContent = g.status === "active" ? t("open") : t("replay");
    const pgn = document.createElement("a");
    pgn.href = `/api/games/${g.id}/pgn`;
    pgn.setAttribute("download", "");
    pgn.textContent = "PGN";
    td.append(open, " · ", pgn);
    tr.appendChild(td);
    body.appendChild(tr);
  }
}
// a signed-in player's games come from the account too, whichever browser they were played on
async function accountGameIds() {
  const me = document.getElementById("username");
  if (!me) return [];
  const profile = await getJSON(`/api/users/${encodeURIComponent(me.textContent.trim())}`).catch(() => null);
  return profile ? profile.games.map((/** @type {{id: string}} */ g) => g.id) : [];
}
const ids = [...new Set([...myGameIds(), ...(await accountGameIds())])].slice(0, 100);
if (ids.length) fill(document.getElementById("mine"), `/api/games?ids=${ids.join(",")}`, true);
else emptyRow(/** @type {HTMLElement} */ (document.querySelector("#mine tbody")), t("No games on this browser yet."));
fill(document.getElementById("recent"), "/api/games?limit=30", false);
