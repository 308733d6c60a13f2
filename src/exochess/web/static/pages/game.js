// @ts-check
// The game page: its first state comes with the HTML (#game-state), the rest over the websocket.
import { ChatBox } from "/static/chat.js";
import { GamePage } from "/static/game.js";
import { pageData } from "/static/pagedata.js";
import { offerCourse, watchPractice } from "/static/practiceresult.js";
import { ReportView } from "/static/report.js";

const root = /** @type {HTMLElement} */ (document.getElementById("game"));
const state = pageData("game-state");
const game = new GamePage(root, state, pageData("account-seat"));
window.exochessGame = game;
// the computer's report of the finished game, under the board
const report = new ReportView(/** @type {HTMLElement} */ (document.getElementById("report")), game);
game.afterRender.push(() => report.update());
report.update();
window.exochessChat = new ChatBox(game, /** @type {HTMLElement} */ (document.getElementById("chat")), pageData("chat-texts"));
// a practice game (started from /practice) ends on a result screen; any other offers the course once
if (!watchPractice(root, game)) offerCourse(root, state.variant.name);
