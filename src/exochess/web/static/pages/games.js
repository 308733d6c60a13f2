// The games page: this browser's games and the most recent ones.
import { getJSON } from "/static/api.js";
import { myGameIds } from "/static/game.js";
import { pageData } from "/static/pagedata.js";
const titles = Object.fromEntries(pageData("variants").map((v) => [v.name, v.title]));
function who(kind, level, name) { return kind === "engine" ? `Computer (${level === 0 ? "random" : "level " + level})` : (name || "Human"); }
async function fill(table, url) {
  const data = await getJSON(url);
  const body = table.querySelector("tbody");
  body.replaceChildren();
  if (!data.games.length) { body.innerHTML = "<tr><td colspan=7>No games yet.</td></tr>"; return; }
  for (const g of data.games) {
    const tr = document.createElement("tr");
    tr.dataset.game = g.id;
    const when = new Date(g.updated).toLocaleString();
    const cells = [titles[g.variant] || g.variant, when, who(g.white, g.level, g.white_name), who(g.black, g.level, g.black_name), String(g.ply),
      g.status === "active" ? "playing" : `${g.result} — ${g.reason || ""}`];
    for (const c of cells) { const td = document.createElement("td"); td.textContent = c; tr.appendChild(td); }
    const td = document.createElement("td");
    td.innerHTML = `<a href="/game/${g.id}">${g.status === "active" ? "open" : "replay"}</a> · <a href="/api/games/${g.id}/pgn" download>PGN</a>`;
    tr.appendChild(td);
    body.appendChild(tr);
  }
}
const ids = myGameIds();
if (ids.length) fill(document.getElementById("mine"), `/api/games?ids=${ids.join(",")}`);
else document.querySelector("#mine tbody").innerHTML = "<tr><td colspan=7>No games on this browser yet.</td></tr>";
fill(document.getElementById("recent"), "/api/games?limit=30");
