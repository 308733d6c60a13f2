// @ts-check
// The lobby page.
import { LobbyPage } from "/static/lobby.js";
import { pageData } from "/static/pagedata.js";

window.exochessLobby = new LobbyPage(/** @type {HTMLElement} */ (document.getElementById("lobby")), pageData("variants"), pageData("lobby-texts"),
  pageData("lobby-me"));
