// @ts-check
// On a game page opened from a tournament (?tournament=<id>): a link back to the event, and,
// once this game is no longer among the event's games on, back to the event's page, which
// takes the player to their next pairing (made already, often: see ?after= there).
import { Reconnector } from "/static/connection.js";
import { t } from "/static/i18n.js";

const event = new URLSearchParams(window.location.search).get("tournament");
const game = window.location.pathname.split("/").pop();
if (event && /^[0-9a-f]{8}$/.test(event)) {
  const link = document.createElement("a");
  link.href = `/tournaments/${event}`;
  link.id = "tournament-return";
  link.className = "button";
  link.textContent = t("Back to the tournament");
  document.querySelector("main")?.prepend(link);
  let seen = false;
  // one way back: every later view of the event would start another navigation, which
  // aborts the one under way (a browser test saw the page's load cut off)
  let leaving = false;
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  new Reconnector(`${scheme}://${window.location.host}/ws/tournaments/${event}`, {
    onOpen() {},
    /** @param {any} data */
    onMessage(data) {
      if (data.type !== "tournament") return;
      const on = data.tournament.playing.some((/** @type {{id: string}} */ g) => g.id === game);
      if (on) seen = true;
      // ?after=: the event's page then takes the player to a pairing made meanwhile
      else if (seen && !leaving) {
        leaving = true;
        setTimeout(() => { window.location.href = `${link.href}?after=${game}`; }, 3000);
      }
    },
    onDown() {},
  }).start();
}
