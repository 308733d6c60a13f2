// The games page: this browser's games and the most recent ones.
import { getJSON } from "/static/api.js";
import { colorName, myGameIds } from "/static/game.js";
import { pageLanguage, t } from "/static/i18n.js";
import { pageData } from "/static/pagedata.js";
const titles = Object.fromEntries(pageData("variants").map((v) => [v.name, v.title]));
function who(kind, level) {
  if (kind !== "engine") return t("Human");
  return level === 0 ? t("Computer (random)") : t("Computer (level {level})", { level });
}
function emptyRow(body, text) {
  const tr = document.createElement("tr");
  const td = document.createElement("td");
  td.colSpan = 7;
  td.textContent = text;
  tr.appendChild(td);
  body.replaceChildren(tr);
}
async function fill(table, url) {
  const data = await getJSON(url);
  const body = table.querySelector("tbody");
  body.replaceChildren();
  if (!data.games.length) { emptyRow(body, t("No games yet.")); return; }
  // each cell carries its column's name: on a phone the rows become cards that show it
  const labels = [...table.querySelectorAll("thead th")].map((th) => th.textContent);
  for (const g of data.games) {
    const tr = document.createElement("tr");
    tr.dataset.game = g.id;
    const when = new Date(g.updated).toLocaleString(pageLanguage());
    const cells = [titles[g.variant] || g.variant, when, who(g.white, g.level), who(g.black, g.level), String(g.ply),
      g.status === "active" ? t("playing") : `${g.result} — ${g.reason ? t(g.reason) : ""}`];
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
const ids = myGameIds();
if (ids.length) fill(document.getElementById("mine"), `/api/games?ids=${ids.join(",")}`);
else emptyRow(document.querySelector("#mine tbody"), t("No games on this browser yet."));
fill(document.getElementById("recent"), "/api/games?limit=30");
