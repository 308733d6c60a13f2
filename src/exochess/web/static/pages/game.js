// The game page: its first state comes with the HTML (#game-state), the rest over the websocket.
import { ChatBox } from "/static/chat.js";
import { GamePage } from "/static/game.js";
import { pageData } from "/static/pagedata.js";

window.exochessGame = new GamePage(
  document.getElementById("game"), pageData("game-state"), pageData("account-seat"),
);
window.exochessChat = new ChatBox(window.exochessGame, document.getElementById("chat"), pageData("chat-texts"));
