// The games page: this browser's games (those whose turn is yours first, soonest deadline
// first) and the most recent ones.
import { getJSON } from "/static/api.js";
import { formatDuration } from "/static/clock.js";
import { loadSeat, myGameIds } from "/static/game.js";
import { pageData } from "/static/pagedata.js";
const titles = Object.fromEntries(pageData("variants").map((v) => [v.name, v.title]));
function who(kind, level, name) { return kind === "engine" ? `Computer (${level === 0 ? "random" : "level " + level})` : (name || "Human"); }
// "Moves" counts moves as players do (a White move and Black's answer are one), not half-moves.
function fullMoves(ply) { return Math.ceil(ply / 2); }
function clockText(g) {
  const tc = g.time_control === "-" ? "unlimited" : g.time_control.endsWith("d") ? `${g.time_control.slice(0, -1)} d/move` : g.time_control;
  if (g.status !== "active" || g.deadline === null) return tc;
  return `${tc} · ${g.turn === "white" ? "White" : "Black"}: ${formatDuration(g.deadline - Date.now())} left`;
}
function yourTurn(g) {
  const seat = loadSeat(g.id);
  return Boolean(seat && g.status === "active" && seat.color === g.turn && g[g.turn] === "human");
}
function ordered(games, mine) {
  if (!mine) return games;
  // your turn first, the nearest deadline first among them; then the rest as the server sent them
  const turn = games.filter(yourTurn);
  turn.sort((a, b) => (a.deadline ?? Infinity) - (b.deadline ?? Infinity));
  return [...turn, ...games.filter((g) => !yourTurn(g))];
}
async function fill(table, url, mine) {
  const data = await getJSON(url);
  const body = table.querySelector("tbody");
  body.replaceChildren();
  if (!data.games.length) { body.innerHTML = "<tr><td colspan=8>No games yet.</td></tr>"; return; }
  for (const g of ordered(data.games, mine)) {
    const tr = document.createElement("tr");
    tr.dataset.game = g.id;
    const turn = mine && yourTurn(g);
    if (turn) tr.classList.add("your-turn");
    const when = new Date(g.updated).toLocaleString();
    const result = g.status === "active" ? (turn ? "your turn" : "playing") : g.status === "aborted" ? "aborted" : `${g.result} — ${g.reason || ""}`;
    const cells = [titles[g.variant] || g.variant, when, who(g.white, g.level, g.white_name), who(g.black, g.level, g.black_name), String(fullMoves(g.ply)), clockText(g), result];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
    const td = document.createElement("td");
    td.innerHTML = `<a href="/game/${g.id}">${g.status === "active" ? "open" : "replay"}</a> · <a href="/api/games/${g.id}/pgn" download>PGN</a>`;
    tr.appendChild(td);
    body.appendChild(tr);
  }
}
// a signed-in player's games come from the account too, whichever browser they were played on
async function accountGameIds() {
  const me = document.getElementById("username");
  if (!me) return [];
  const profile = await getJSON(`/api/users/${encodeURIComponent(me.textContent.trim())}`).catch(() => null);
  return profile ? profile.games.map((g) => g.id) : [];
}
const ids = [...new Set([...myGameIds(), ...(await accountGameIds())])].slice(0, 100);
if (ids.length) fill(document.getElementById("mine"), `/api/games?ids=${ids.join(",")}`, true);
else document.querySelector("#mine tbody").innerHTML = "<tr><td colspan=8>No games on this browser yet.</td></tr>";
fill(document.getElementById("recent"), "/api/games?limit=30", false);
