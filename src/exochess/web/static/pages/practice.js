// @ts-check
// /practice/<game>: each position starts a game against the computer from its FEN, played on the
// ordinary game page; that page shows the result and offers a retry (practiceresult.js).
import { postJSON } from "/static/api.js";
import { staticBoard } from "/static/board.js";
import { practiceWon, rememberPracticeGame } from "/static/learnprogress.js";
import { pageData } from "/static/pagedata.js";

const page = pageData("practice-data");
const variant = pageData("variants").find((/** @type {VariantInfo} */ v) => v.name === page.variant);
const won = practiceWon(page.variant);

/**
 * @param {string} game
 * @param {{id: string, level: number, color: string, fen: string, title: string, goal: string, moves: number}} position
 */
export async function startPractice(game, position) {
  const created = await postJSON("/api/games", {
    variant: game, opponent: "computer", level: position.level, color: position.color, fen: position.fen,
  });
  rememberPracticeGame(created.id, { variant: game, id: position.id, level: position.level, color: position.color,
    fen: position.fen, title: position.title, goal: position.goal, moves: position.moves });
  location.href = created.seats[position.color].url;
}

for (const card of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".practice-card"))) {
  const p = page.positions.find((/** @type {{id: string}} */ x) => x.id === card.dataset.id);
  staticBoard(/** @type {HTMLElement} */ (card.querySelector(".mini")), variant, p.fen);
  /** @type {HTMLElement} */ (card.querySelector(".practice-won")).hidden = !won[p.id];
  /** @type {HTMLElement} */ (card.querySelector(".practice-play")).addEventListener("click", () => {
    startPractice(page.variant, p).catch((e) => { /** @type {HTMLElement} */ (document.getElementById("error")).textContent = e.message; });
  });
}
document.body.dataset.ready = "true";
