// @ts-check
// /tournaments/<id>: the event's standings, live over /ws/tournaments/<id>, a page of ten lines
// at a time (the socket sends the page it is asked for, then its changes); join and withdraw;
// a player paired by the event is taken to their new game.
import { postJSON } from "/static/api.js";
import { Reconnector } from "/static/connection.js";
import { t } from "/static/i18n.js";
import { pageData } from "/static/pagedata.js";
import { titledName } from "/static/titlebadge.js";
import { countdown, duration } from "/static/tournamentclock.js";

/** @typedef {{id: string, white: string, black: string, round: number, white_berserk?: boolean,
 *   black_berserk?: boolean, white_title?: string | null, black_title?: string | null}} Playing */
/** @typedef {{rank: number, name: string, title?: string | null, rating: number, score: number, active: boolean,
 *   sheet?: number[], berserks?: boolean[], fire?: boolean, buchholz?: number, buchholz_cut1?: number,
 *   sonneborn_berger?: number, wins?: number}} Line */
/** @typedef {{id: string, kind: string, variant: string, name: string, time_control: string,
 *   rated: boolean, bots_allowed?: boolean, status: string, starts_at: number, ends_at: number | null, rounds: number | null,
 *   round: number, players: number, standings: Line[], playing: Playing[], podium: string[],
 *   page: number, pages: number, mine: Line | null}} View */

const root = /** @type {HTMLElement} */ (document.getElementById("tournament"));
/** @type {View} */
let view = pageData("tournament-data");
/** @type {string | null} */
const me = pageData("tournament-me");
/** The games on when the page opened: a player already in one is shown a link, not sent;
 * unless they came back from a game (?after=<its id>, see tournamentreturn.js): a game of theirs
 * on then is their next pairing, made while their game page waited to come back. */
const cameBack = new URLSearchParams(window.location.search).has("after");
const knownGames = new Set(cameBack ? [] : view.playing.map((g) => g.id));
if (cameBack) window.history.replaceState(null, "", window.location.pathname);
const error = /** @type {HTMLElement} */ (document.getElementById("tournament-error"));

/** @param {string} tag @param {string} text @returns {HTMLElement} */
function cell(tag, text) {
  const el = document.createElement(tag);
  el.textContent = text;
  return el;
}

// An arena line's games: each game's points, a berserked one marked ⚡ (its bonus point, when
// it earned one, is in the points).
/** @param {Line} line */
function sheetText(line) {
  return (line.sheet || []).map((points, i) => (line.berserks && line.berserks[i] ? `${points}⚡` : String(points))).join(" ");
}

function renderClock() {
  const clock = /** @type {HTMLElement} */ (document.getElementById("tournament-clock"));
  if (view.status === "created") clock.textContent = countdown(view.starts_at, view.status);
  else if (view.status === "finished") clock.textContent = t("This tournament is over.");
  else if (view.kind === "arena" && view.ends_at !== null) {
    clock.textContent = view.ends_at > Date.now()
      ? t("{time} left", { time: duration(view.ends_at - Date.now()) })
      : t("Pairing has stopped: the last games are being played.");
  } else clock.textContent = t("Round {round} of {rounds}", { round: view.round, rounds: view.rounds || 0 });
  renderActions();
}

/** Whether the server would refuse a join: the event is over, or the arena has stopped pairing. */
function closed() {
  return view.status === "finished" || (view.kind === "arena" && view.ends_at !== null && view.ends_at <= Date.now());
}

/** Join and withdraw for a player, the sign-in link for a visitor: only what can still be done
 * (checked every second too, since an arena stops pairing without a message). */
function renderActions() {
  // the player's line: on the page shown, or sent apart (``mine``) when it is on another
  const mine = me ? view.mine || view.standings.find((line) => line.name === me) : undefined;
  const join = document.getElementById("tournament-join");
  const leave = document.getElementById("tournament-withdraw");
  const signin = document.getElementById("tournament-signin");
  if (join) join.hidden = Boolean(mine && mine.active) || closed();
  if (leave) leave.hidden = !(mine && mine.active) || view.status === "finished";
  if (signin) signin.hidden = closed();
}

function render() {
  root.dataset.status = view.status;
  const kind = view.kind === "arena" ? t("Arena") : t("Swiss");
  /** @type {HTMLElement} */ (document.getElementById("tournament-about")).textContent =
    [kind, view.variant, view.time_control, view.rated ? t("rated") : t("casual"),
     t("{count} players", { count: view.players }),
     ...(view.bots_allowed ? [t("bots may join")] : [])].join(" · ");
  renderClock();
  const head = /** @type {HTMLElement} */ (document.getElementById("standings-head"));
  const columns = view.kind === "arena"
    ? [t("Rank"), t("Player"), t("Rating"), t("Games"), t("Score")]
    : [t("Rank"), t("Player"), t("Rating"), t("Score"), t("Buchholz cut 1"), t("Buchholz"), t("Sonneborn-Berger")];
  head.replaceChildren(...columns.map((c) => cell("th", c)));
  const body = /** @type {HTMLElement} */ (document.querySelector("#tournament-standings tbody"));
  body.replaceChildren(...view.standings.map((line) => {
    const tr = document.createElement("tr");
    tr.dataset.player = line.name;
    if (!line.active) tr.classList.add("withdrawn");
    if (line.name === me) tr.classList.add("me");
    const name = line.name + (line.fire ? " 🔥" : "") + (line.active ? "" : ` (${t("paused")})`);
    const cells = view.kind === "arena"
      ? [String(line.rank), name, String(line.rating), sheetText(line), String(line.score)]
      : [String(line.rank), name, String(line.rating), String(line.score), String(line.buchholz_cut1),
         String(line.buchholz), String(line.sonneborn_berger)];
    tr.replaceChildren(...cells.map((c) => cell("td", c)));
    tr.children[1].replaceChildren(...titledName(name, line.title));
    return tr;
  }));
  renderPager();
  const podium = /** @type {HTMLElement} */ (document.getElementById("tournament-podium"));
  podium.hidden = !view.podium.length;
  podium.replaceChildren(...view.podium.map((name) => cell("li", name)));
  const games = /** @type {HTMLElement} */ (document.getElementById("tournament-games"));
  games.replaceChildren(...view.playing.map((g) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `/game/${g.id}`;
    a.replaceChildren(
      ...titledName(`${g.white}${g.white_berserk ? " ⚡" : ""}`, g.white_title),
      document.createTextNode(" – "),
      ...titledName(`${g.black}${g.black_berserk ? " ⚡" : ""}`, g.black_title),
    );
    if (g.white === me || g.black === me) a.classList.add("mine");
    li.append(a);
    return li;
  }));
  for (const g of view.playing) {
    if ((g.white === me || g.black === me) && !knownGames.has(g.id)) {
      window.location.href = `/game/${g.id}?tournament=${view.id}`;
    }
  }
}

const pager = /** @type {HTMLElement} */ (document.getElementById("standings-pager"));

function renderPager() {
  pager.hidden = view.pages <= 1;
  /** @type {HTMLElement} */ (document.getElementById("standings-page")).textContent =
    t("Page {page} of {pages}", { page: view.page, pages: view.pages });
  for (const button of pager.querySelectorAll("button")) {
    const which = button.dataset.page;
    button.disabled = which === "first" || which === "previous" ? view.page <= 1
      : which === "next" || which === "last" ? view.page >= view.pages
      : false;
  }
}

pager.addEventListener("click", (event) => {
  const button = /** @type {HTMLElement} */ (event.target).closest("button");
  if (!button) return;
  const which = button.dataset.page;
  const page = which === "first" ? 1 : which === "previous" ? view.page - 1 : which === "next" ? view.page + 1
    : which === "last" ? view.pages : null;
  socket.send({ type: "page", page });
});

/** @param {string} action */
async function act(action) {
  error.textContent = "";
  try {
    await postJSON(`/api/tournaments/${view.id}/${action}`);
  } catch (e) {
    error.textContent = e instanceof Error ? e.message : String(e);
  }
}
document.getElementById("tournament-join")?.addEventListener("click", () => act("join"));
document.getElementById("tournament-withdraw")?.addEventListener("click", () => act("withdraw"));

const scheme = window.location.protocol === "https:" ? "wss" : "ws";
const socket = new Reconnector(`${scheme}://${window.location.host}/ws/tournaments/${view.id}`, {
  onOpen() { root.dataset.live = "yes"; },
  /** @param {any} data */
  onMessage(data) {
    if (data.type === "tournament") {
      view = data.tournament;
      render();
    }
  },
  onDown() { root.dataset.live = "no"; },
});
socket.start();
setInterval(() => socket.send({ type: "ping" }), 20000);
setInterval(renderClock, 1000);
render();
