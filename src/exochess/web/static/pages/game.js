// @ts-check
// The game page: its first state comes with the HTML (#game-state), the rest over the websocket.
import { ChatBox } from "/static/chat.js";
import { GamePage } from "/static/game.js";
import { pageData } from "/static/pagedata.js";

const game = new GamePage(
  /** @type {HTMLElement} */ (document.getElementById("game")), pageData("game-state"), pageData("account-seat"),
);
window.exochessGame = game;
window.exochessChat = new ChatBox(game, /** @type {HTMLElement} */ (document.getElementById("chat")), pageData("chat-texts"));
