// @ts-check
// The lobby page: open challenges and live games over the lobby websocket; post, accept, cancel.
import { getJSON } from "/static/api.js";
import { saveSeat } from "/static/game.js";
import { t } from "/static/i18n.js";
import { player, setPlayerName } from "/static/player.js";
import { titleBadge } from "/static/titlebadge.js";

/**
 * @typedef {{name: string, rating?: number | null, provisional?: boolean, account?: string | null, title?: string | null}} Seat
 * @typedef {{kind: string, label: string}} TimeControlView
 * @typedef {{id: string, player: Seat, variant: string, time_control: TimeControlView, color: string,
 *   rated: boolean}} Challenge
 * @typedef {{id: string, white: Seat, black: Seat, variant: string, time_control: TimeControlView,
 *   rated: boolean}} LiveGame
 * @typedef {{[variant: string]: {rating: number}}} Ratings
 */

// A challenge this browser posted: its seat secret is kept until the challenge becomes a game.
const MINE = (/** @type {string} */ id) => `exochess:challenge:${id}`;

/** @param {string} id */
function loadMine(id) {
  try { return JSON.parse(localStorage.getItem(MINE(id)) || "null"); } catch { return null; }
}

// The rating range the lobby's challenges are filtered by ("" for any), kept in the browser.
const RANGE = "exochess:lobby:range";

// Whether a challenge's poster is rated within `spread` of the viewer's rating in its game (as
// in_rating_range in web/social/lobby.py): a guest's challenge has no rating and is left out.
/**
 * @param {Challenge} challenge
 * @param {Ratings} myRatings
 * @param {number} spread
 * @returns {boolean}
 */
export function inRatingRange(challenge, myRatings, spread) {
  const rating = challenge.player.rating;
  if (rating === null || rating === undefined) return false;
  const mine = myRatings[challenge.variant] ? myRatings[challenge.variant].rating : 1500;
  return Math.abs(rating - mine) <= spread;
}

// "1500?" while a rating is provisional, as on lichess.
/** @param {Seat | null | undefined} p @returns {string} */
export function ratingText(p) {
  if (!p || p.rating === null || p.rating === undefined) return "";
  return `${p.rating}${p.provisional ? "?" : ""}`;
}

function myChallengeIds() {
  const ids = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith("exochess:challenge:")) ids.push(k.slice("exochess:challenge:".length));
  }
  return ids;
}

export class LobbyPage {
  /**
   * @param {HTMLElement} root
   * @param {{name: string, title: string}[]} variants
   * @param {{[key: string]: string}} texts
   * @param {{name: string, ratings: Ratings} | null} account
   */
  constructor(root, variants, texts, account = null) {
    this.root = root;
    this.texts = texts;
    this.titles = Object.fromEntries(variants.map((v) => [v.name, v.title]));
    // a guest plays under a browser token and a chosen name; a signed-in player as their account
    this.me = player();
    this.account = account;
    /** @type {Set<string>} */
    this.accountChallenges = new Set();  // ids of the account's own challenges seen listed
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retry = 500;
    /** @type {{challenges: Challenge[], games: LiveGame[]}} */
    this.view = { challenges: [], games: [] };
    const heads = (/** @type {string} */ sel) =>
      [...root.querySelectorAll(`${sel} thead th`)].map((/** @type {Element} */ th) => (th.textContent || "").trim());
    this.challengeHeads = heads("#challenges");
    this.liveHeads = heads("#live");
    if (!account) this.$("#name").value = this.me.name;
    this.bind();
    this.connect();
    this.checkOldChallenges();
  }

  /** The page's element matching `sel` (an input, a table body...: its kind is the selector's).
   * @param {string} sel @returns {any} */
  $(sel) { return this.root.querySelector(sel); }

  bind() {
    this.$("#name-form")?.addEventListener("submit", (/** @type {Event} */ e) => {
      e.preventDefault();
      const name = this.$("#name").value.trim().replace(/\s+/g, " ");
      if (!name) { this.$("#name").value = this.me.name; return; }
      this.me = setPlayerName(name.slice(0, 24));
      this.$("#name").value = this.me.name;
      this.status(this.texts.name_saved);
    });
    const time = this.$("#post-time");
    const rated = this.$("#post-rated");
    time.addEventListener("change", () => {
      this.$("#custom-time").hidden = time.value !== "custom";
      // a rated game needs a clock
      if (this.account) {
        rated.disabled = time.value === "-";
        if (rated.disabled) rated.checked = false;
      }
    });
    const range = this.$("#rating-range");
    if (this.account) {
      range.value = localStorage.getItem(RANGE) || "";
      range.addEventListener("change", () => {
        localStorage.setItem(RANGE, range.value);
        this.render();
      });
    }
    this.$("#post").addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); this.post(); });
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${proto}://${location.host}/ws/lobby`);
    this.ws = ws;
    this.status(this.texts.connecting);
    ws.addEventListener("open", () => {
      this.retry = 500;
      // says which player this is: its real-time challenges stay while the page is open
      ws.send(JSON.stringify({ type: "hello", player: this.me.token, ref: "hello" }));
    });
    ws.addEventListener("message", (e) => this.onMessage(JSON.parse(e.data)));
    ws.addEventListener("close", (e) => {
      this.root.dataset.connected = "0";
      this.status(e.code === 4429 ? e.reason : this.texts.offline);
      if (this.ws === ws) setTimeout(() => this.connect(), this.retry);
      this.retry = Math.min(this.retry * 2, 8000);
    });
  }

  /** @param {WsMessage} message */
  send(message) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) { this.error(this.texts.not_connected); return; }
    this.error("");
    this.ws.send(JSON.stringify(message));
  }

  /** @param {WsMessage} msg */
  onMessage(msg) {
    if (msg.type === "lobby") {
      this.view = /** @type {{challenges: Challenge[], games: LiveGame[]}} */ (/** @type {unknown} */ (msg));
      this.render();
    } else if (msg.type === "hello") {
      this.root.dataset.connected = "1";
      this.status("");
    } else if (msg.type === "posted") {
      localStorage.setItem(MINE(msg.challenge.id), JSON.stringify({ secret: msg.secret }));
      this.render();
    } else if (msg.type === "start") {
      // this browser accepted: its seat secret goes to storage, never into the URL
      saveSeat(msg.game, msg.color, msg.secret);
      location.href = msg.url;
    } else if (msg.type === "accepted") {
      const mine = loadMine(msg.challenge);
      if (mine) {
        saveSeat(msg.game, msg.poster_color, mine.secret);
        localStorage.removeItem(MINE(msg.challenge));
        location.href = `/game/${msg.game}`;
      } else if (this.accountChallenges.has(msg.challenge)) {
        // posted from another browser of this account: the account holds the seat
        location.href = `/game/${msg.game}`;
      }
    } else if (msg.type === "cancelled") {
      localStorage.removeItem(MINE(msg.id));
      this.render();
    } else if (msg.type === "error") {
      this.error(msg.error);
    }
  }

  // Correspondence challenges posted on an earlier visit: accepted meanwhile, or gone.
  async checkOldChallenges() {
    for (const id of myChallengeIds()) {
      const mine = loadMine(id);
      try {
        const c = await getJSON(`/api/challenges/${encodeURIComponent(id)}`);
        if (c.status === "accepted" && c.game && mine) {
          saveSeat(c.game, c.poster_color, mine.secret);
          localStorage.removeItem(MINE(id));
          this.notice(c.game);
        }
      } catch {
        localStorage.removeItem(MINE(id));  // cancelled or expired
      }
    }
  }

  /** @param {string} gameId */
  notice(gameId) {
    const p = document.createElement("p");
    p.className = "note";
    p.append(`${this.texts.accepted} `);
    const a = document.createElement("a");
    a.href = `/game/${gameId}`;
    a.textContent = this.texts.open_game;
    p.append(a);
    this.$(".lobby-lists").prepend(p);
  }

  post() {
    const form = new FormData(this.$("#post"));
    let tc = String(form.get("time_control"));
    if (tc === "custom") tc = `${this.$("#custom-minutes").value || 0}+${this.$("#custom-increment").value || 0}`;
    this.send({
      type: "post", ref: "post", variant: form.get("variant"), time_control: tc, color: form.get("color"),
      name: this.me.name, player: this.me.token, rated: Boolean(this.account && form.get("rated")),
    });
  }

  /** @param {string} id */
  accept(id) { this.send({ type: "accept", ref: "accept", id, name: this.me.name, player: this.me.token }); }

  /** @param {string} id */
  cancel(id) { this.send({ type: "cancel", ref: "cancel", id, player: this.me.token }); }

  /** @param {string} text */
  error(text) { this.$("#lobby-error").textContent = text || ""; }

  /** @param {string} text */
  status(text) { this.$("#lobby-status").textContent = text || ""; }

  // A cell, labelled with its column's heading (a phone shows each row as a card of labelled values).
  /** @param {HTMLTableRowElement} tr @param {string} text @param {string} [className] */
  cell(tr, text, className) {
    const td = document.createElement("td");
    td.textContent = text;
    if (className) td.className = className;
    const heads = tr.dataset.game ? this.liveHeads : this.challengeHeads;
    const label = heads[tr.children.length];
    if (label) td.dataset.label = label;
    tr.appendChild(td);
    return td;
  }

  /** @param {Challenge} c */
  isMine(c) {
    const byAccount = Boolean(this.account && c.player.account === this.account.name);
    if (byAccount) this.accountChallenges.add(c.id);
    return byAccount || Boolean(loadMine(c.id));
  }

  render() {
    const tx = this.texts;
    const body = this.$("#challenges tbody");
    body.replaceChildren();
    const range = this.account ? this.$("#rating-range").value : "";
    let hidden = 0;
    // the viewer's own challenges first, then the others newest first (as the server lists them)
    const ordered = [...this.view.challenges].sort((a, b) => Number(this.isMine(b)) - Number(this.isMine(a)));
    for (const c of ordered) {
      const mine = this.isMine(c);
      if (!mine && range && !inRatingRange(c, this.account?.ratings ?? {}, Number(range))) {
        hidden += 1;
        continue;
      }
      const tr = document.createElement("tr");
      tr.dataset.challenge = c.id;
      if (mine) tr.className = "mine";
      const who = this.cell(tr, c.player.name || tx.anonymous, "who");
      if (c.player.account) {
        // an account's name links to its profile
        const a = document.createElement("a");
        a.href = `/@/${encodeURIComponent(c.player.account)}`;
        a.textContent = c.player.name;
        who.replaceChildren(a);
      }
      if (c.player.title) who.prepend(titleBadge(c.player.title), " ");
      this.cell(tr, ratingText(c.player) || "—", "rating");
      this.cell(tr, this.titles[c.variant] || c.variant);
      this.cell(tr, c.time_control.kind === "none" ? tx.unlimited : c.time_control.label);
      const colour = this.cell(tr, "");
      const disc = document.createElement("span");
      disc.className = `disc ${c.color}`;
      const side = document.createElement("span");
      side.append(disc, tx[c.color] || c.color);
      colour.append(side);
      this.cell(tr, c.rated ? tx.rated : tx.casual, c.rated ? "mode rated" : "mode");
      const td = document.createElement("td");
      const button = document.createElement("button");
      button.type = "button";
      if (mine) {
        button.textContent = tx.cancel;
        button.className = "cancel";
        button.addEventListener("click", () => this.cancel(c.id));
        const note = document.createElement("small");
        note.className = "muted";
        note.textContent = ` ${tx.yours}`;
        td.append(button, note);
      } else {
        button.textContent = tx.accept;
        button.className = "primary accept";
        if (c.rated && !this.account) {
          button.disabled = true;
          button.title = t("Sign in to accept a rated challenge");
        }
        button.addEventListener("click", () => this.accept(c.id));
        td.append(button);
      }
      tr.appendChild(td);
      body.appendChild(tr);
    }
    this.$("#no-challenges").hidden = this.view.challenges.length > 0;
    this.$("#filtered-note").hidden = hidden === 0;
    const games = this.$("#live tbody");
    games.replaceChildren();
    for (const g of this.view.games) {
      const tr = document.createElement("tr");
      tr.dataset.game = g.id;
      for (const p of [g.white, g.black]) {
        const who = document.createElement("span");
        who.textContent = p.name || tx.anonymous;
        if (p.title) who.prepend(titleBadge(p.title), " ");
        const rating = ratingText(p);
        if (rating) {
          const small = document.createElement("small");
          small.className = "seat-rating";
          small.textContent = ` ${rating}`;
          who.append(small);
        }
        this.cell(tr, "", "who").append(who);
      }
      this.cell(tr, this.titles[g.variant] || g.variant);
      this.cell(tr, `${g.time_control.kind === "none" ? tx.unlimited : g.time_control.label}${g.rated ? ` · ${tx.rated}` : ""}`);
      const td = document.createElement("td");
      const a = document.createElement("a");
      a.href = `/game/${g.id}`;
      a.className = "watch";
      a.textContent = tx.watch;
      td.appendChild(a);
      tr.appendChild(td);
      games.appendChild(tr);
    }
    this.$("#no-games").hidden = this.view.games.length > 0;
  }
}
