// @ts-check
// /puzzles: each game's daily puzzle diagram and the player's puzzle rating (the account's, else
// this browser's).
import { getJSON } from "/static/api.js";
import { staticBoard } from "/static/board.js";
import { t } from "/static/i18n.js";
import { pageData } from "/static/pagedata.js";
import { guestGame } from "/static/puzzlerating.js";

const variants = pageData("variants");
for (const card of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".card"))) {
  const v = variants.find((/** @type {{name: string}} */ x) => x.name === card.dataset.variant);
  const mini = /** @type {HTMLElement} */ (card.querySelector(".mini"));
  if (v && mini) staticBoard(mini, v, mini.dataset.fen || "");
}

getJSON("/api/puzzles/player").catch(() => ({ signed_in: false, games: {} })).then((me) => {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll("[data-rating]"))) {
    const game = el.dataset.rating || "";
    const rating = me.signed_in ? me.games[game].rating : Math.round(guestGame(game).rating);
    el.textContent = t("Your puzzle rating: {rating}", { rating });
  }
  document.body.dataset.ratings = "shown";
});
