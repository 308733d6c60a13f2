// @ts-check
// The home page: each game's starting diagram (the other cards, e.g. the tournaments, have none).
import { staticBoard } from "/static/board.js";
import { pageData } from "/static/pagedata.js";

const variants = pageData("variants");
for (const card of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".card[data-variant]"))) {
  const v = variants.find((/** @type {{name: string}} */ x) => x.name === card.dataset.variant);
  const mini = /** @type {HTMLElement} */ (card.querySelector(".mini"));
  staticBoard(mini, v, mini.dataset.fen || "");
}
