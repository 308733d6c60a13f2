// @ts-check
// The game page: live board over a websocket, move list with replay, game actions.
import { getJSON, postJSON } from "/static/api.js";
import { BoardView, describeAnalysis, glyphsFor, sideToMove } from "/static/board.js";
import { ClockView } from "/static/clock.js";
import { Reconnector } from "/static/connection.js";
import { t } from "/static/i18n.js";
import { BoardKeys, announce } from "/static/keyboard.js";
import { BoardExtras } from "/static/legend.js";
import { Motion, moveArrows } from "/static/motion.js";
import { moveEntry, moveSentence } from "/static/movewords.js";
import { clockNode, commentNode } from "/static/pgnnotes.js";
import { Sound } from "/static/sound.js";

// A side's name in the page's language.
export const colorName = (/** @type {string} */ color) => (color === "white" ? t("White") : t("Black"));

const SEAT_KEY = (/** @type {string} */ id) => `exochess:seat:${id}`;
const INVITE_KEY = (/** @type {string} */ id) => `exochess:invite:${id}`;
const REMATCH_KEY = (/** @type {string} */ id) => `exochess:rematch:${id}`;

// What this browser did about a rematch game: "asked" (it offered it) or "declined".
/** @param {string} id @param {string} what */
function markRematch(id, what) { try { localStorage.setItem(REMATCH_KEY(id), what); } catch { /* private mode */ } }
/** @param {string} id */
function rematchMark(id) { try { return localStorage.getItem(REMATCH_KEY(id)); } catch { return null; } }
/** @param {string} id */
function rematchAskedHere(id) { return rematchMark(id) === "asked"; }
/** @param {string} id */
function rematchDeclined(id) { return rematchMark(id) === "declined"; }

/** @param {string} id @param {string} color @param {string | null} secret */
export function saveSeat(id, color, secret) {
  localStorage.setItem(SEAT_KEY(id), JSON.stringify({ color, secret }));
}

/** @param {string} id @returns {{color: string, secret: string | null} | null} */
export function loadSeat(id) {
  try { return JSON.parse(localStorage.getItem(SEAT_KEY(id)) || "null"); } catch { return null; }
}

// "name (1500?)", "name (1512 +12)" after a rated game, or null for a seat no account holds
/** @param {{name: string | null, rating: number, provisional: boolean, diff: number | null, title?: string | null} | null} user */
function accountLabel(user) {
  if (!user) return null;
  const name = (user.title ? `${user.title} ` : "") + (user.name === null ? t("deleted player") : user.name);
  const diff = user.diff === null ? "" : ` ${user.diff >= 0 ? "+" : ""}${user.diff}`;
  return `${name} (${user.rating}${user.provisional ? "?" : ""}${diff})`;
}

export function myGameIds() {
  const ids = [];
  for (let i = 0; i < localStorage.length; i++) {
    const k = localStorage.key(i);
    if (k && k.startsWith("exochess:seat:")) ids.push(k.slice("exochess:seat:".length));
  }
  return ids;
}

// Create a game from the new-game form; returns the URL of the creator's game page.
/** @param {{[field: string]: unknown}} body the new game's fields (POST /api/games) */
export async function createGame(body) {
  const data = await postJSON("/api/games", body);
  const mine = data.seats[data.you];
  saveSeat(data.id, data.you, mine.secret);
  const other = data.you === "white" ? "black" : "white";
  if (data.seats[other]) {
    localStorage.setItem(INVITE_KEY(data.id), location.origin + data.seats[other].url);
  }
  return `/game/${data.id}`;
}

export class GamePage {
  /**
   * @param {any} root the page's element (its parts are found by id)
   * @param {GameStateJson} state the page's first state
   * @param {string | null} [accountSeat] the seat the signed-in account holds
   */
  constructor(root, state, accountSeat = null) {
    this.root = root;
    this.id = root.dataset.game;
    this.state = state;
    this.viewPly = null;
    /** @type {number | null} the ply at which this player's takeback offer was declined */
    this.takebackDeclinedAt = null;
    this.pendingRef = 0;
    this.pending = null;      // {move, ply, ref}: a move sent and not yet seen stored
    this.link = "connecting"; // "online" once the seat is proved; "reconnecting" after a drop
    this.nextAnimation = null;
    /** @type {string | null} what the board shows (render draws it again when it changes) */
    this.boardKey = null;
    // a seat this browser keeps a secret for, or else the seat the signed-in account holds
    // (the session cookie proves it: the requests carry no secret)
    this.seat = loadSeat(this.id) || (accountSeat ? { color: accountSeat, secret: null } : null);
    // other parts of the page (the chat) see each message first; true means "mine alone"
    /** @type {((msg: WsMessage) => boolean)[]} */
    this.listeners = [];
    /** @type {(() => void)[]} told after every render (the game report under the board) */
    this.afterRender = [];
    /** @type {{[ply: number]: string}} the report's mark of each move (index from 0), if any */
    this.moveMarks = {};
    this.offeredSeat = this.takeSeatFromHash();
    const v = state.variant;
    this.board = new BoardView(root.querySelector("#board"), {
      width: v.width, height: v.height, pieceNames: v.piece_names, royal: v.royal,
      glyphs: glyphsFor(v.name), onMove: (text) => this.sendMove(text),
      fetchNext: (prefix) => this.fetchNext(prefix), onError: (message) => this.error(message),
      onPremove: () => this.render(),
    });
    this.motion = new Motion(this.board);
    this.keys = new BoardKeys(this.board, v);
    this.sound = new Sound();
    this.sound.bindSwitch(this.$("#sound"));
    if (this.seat && this.seat.color === "black") this.board.flip();
    this.clocks = new ClockView(root.querySelector("#clocks"), this);
    this.extras = new BoardExtras(root, v, this.board);
    const note = this.$("#start-note");
    if (v.starting_position_note && state.start_fen === v.starting_fen) {
      note.textContent = v.starting_position_note;
      note.hidden = false;
    }
    this.bind();
    if (this.offeredSeat) this.askSeat();
    this.render();
    this.connect();
  }

  // A link's #seat=...&secret=... : saved at once when this browser holds no seat in the game;
  // a different secret than the saved one is only offered (returned), never silently replaces it.
  takeSeatFromHash() {
    const hash = new URLSearchParams(location.hash.slice(1));
    const seat = hash.get("seat"), secret = hash.get("secret");
    if (!seat || !secret) return null;
    history.replaceState(null, "", location.pathname + location.search);
    if (!this.seat) {
      saveSeat(this.id, seat, secret);
      this.seat = { color: seat, secret };
      return null;
    }
    return this.seat.secret === secret ? null : { color: seat, secret };
  }

  askSeat() {
    if (!this.offeredSeat) return;
    const box = this.$("#seat-choice");
    this.$("#seat-choice-text").textContent =
      t("This link carries another seat secret ({link}) than the one this browser keeps for this game ({mine}). Use the link's seat instead of yours?",
        { link: colorName(this.offeredSeat.color), mine: colorName(/** @type {{color: string}} */ (this.seat).color) });
    box.hidden = false;
  }

  // Replace the saved seat only once the server has accepted the link's secret.
  useOfferedSeat() {
    if (!this.offeredSeat) return;
    if (!this.conn.send({ type: "auth", secret: this.offeredSeat.secret, ref: "seat-link" })) {
      this.error(t("Not connected yet: try again in a moment."));
    }
  }

  closeSeatChoice() {
    this.offeredSeat = null;
    this.$("#seat-choice").hidden = true;
  }

  /** @param {string} sel */
  $(sel) { return this.root.querySelector(sel); }

  // A state from the server keeps the game's words (piece names, legend) of the page's first
  // state, which the server wrote in the page's language; the live states carry them in English.
  /** @param {GameStateJson} state @returns {GameStateJson} */
  withPageWords(state) {
    const words = this.state && this.state.variant;
    return words && state.variant && state.variant.name === words.name ? { ...state, variant: words } : state;
  }

  bind() {
    this.$("#flip").addEventListener("click", () => this.board.flip());
    this.$("#first").addEventListener("click", () => this.show(0));
    this.$("#prev").addEventListener("click", () => this.show(this.shownPly() - 1));
    this.$("#next").addEventListener("click", () => this.show(this.shownPly() + 1));
    this.$("#last").addEventListener("click", () => this.show(null));
    document.addEventListener("keydown", (e) => {
      const target = /** @type {HTMLElement | null} */ (e.target);
      if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
      if (document.querySelector(".chooser-back")) return;
      if (e.key === "ArrowLeft") { this.show(this.shownPly() - 1); e.preventDefault(); }
      else if (e.key === "ArrowRight") { this.show(this.shownPly() + 1); e.preventDefault(); }
      else if (e.key === "Home") { this.show(0); e.preventDefault(); }
      else if (e.key === "End") { this.show(null); e.preventDefault(); }
      else if (e.key === "Escape") this.board.cancelInput();
    });
    const resign = this.$("#resign");
    resign.addEventListener("click", async () => {
      if (resign.dataset.confirm !== "1") {
        resign.dataset.confirm = "1";
        resign.textContent = t("Really resign?");
        setTimeout(() => { resign.dataset.confirm = ""; resign.textContent = t("Resign"); }, 4000);
        return;
      }
      resign.dataset.confirm = ""; resign.textContent = t("Resign");
      await this.action("resign", {});
    });
    this.$("#berserk").addEventListener("click", () => this.action("berserk", {}));
    this.$("#takeback").addEventListener("click", () => this.action("takeback", { action: "offer" }));
    this.$("#accept-takeback").addEventListener("click", () => this.action("takeback", { action: "accept" }));
    this.$("#decline-takeback").addEventListener("click", () => this.action("takeback", { action: "decline" }));
    this.$("#rematch").addEventListener("click", () => this.rematch());
    this.$("#decline-rematch").addEventListener("click", () => this.declineRematch());
    this.$("#evaluate").addEventListener("click", () => this.evaluate());
    this.$("#seat-use-link").addEventListener("click", () => this.useOfferedSeat());
    this.$("#seat-keep").addEventListener("click", () => this.closeSeatChoice());
    this.$("#typed").addEventListener("submit", (/** @type {Event} */ e) => {
      e.preventDefault();
      const input = this.$("#typed-move");
      const text = input.value.trim();
      if (text) { input.value = ""; this.sendMove(text); }
    });
    this.$("#analyse").addEventListener("click", (/** @type {Event} */ e) => {
      e.preventDefault();
      // the whole line: the game's start and its moves up to the one shown
      const q = new URLSearchParams({ variant: this.state.variant.name, fen: this.state.start_fen });
      const moves = this.state.moves.slice(0, this.shownPly()).map((/** @type {MoveView} */ m) => m.text);
      if (moves.length) q.set("moves", moves.join(" "));
      q.set("game", this.id);  // named to the live analysis, which refuses a game between people in play
      location.href = `/analysis?${q}`;
    });
  }

  connect() {
    const proto = location.protocol === "https:" ? "wss" : "ws";
    this.conn = new Reconnector(`${proto}://${location.host}/ws/games/${this.id}`, {
      onOpen: () => {
        // the seat secret goes in a message, never in a URL (kept out of access logs)
        if (this.seat && this.seat.secret) this.conn.send({ type: "auth", secret: this.seat.secret, ref: "seat" });
        // an account's seat is given to the connection by the server: its hello says so
        else if (!this.seat) this.online();
        this.clocks.onOpen();
      },
      onMessage: (msg) => this.onMessage(msg),
      onDown: (e) => {
        this.root.dataset.connected = "0";
        this.link = "reconnecting";
        // 4429: the server's cap on connections (per address or per game) was reached
        if (e.code === 4429) this.error(t("Live updates paused: {reason}", { reason: e.reason }));
        this.forceBoard = true;
        this.render();
      },
    });
    this.conn.start();
  }

  // The connection is up and this browser's seat (if any) proved: inputs come back, a message
  // left from the time offline goes, and a move sent before a drop is settled.
  online() {
    const back = this.link === "reconnecting";
    this.link = "online";
    this.root.dataset.connected = "1";
    if (back) this.error("");
    const p = this.pending;
    if (p) {
      const s = this.state;
      if (s.ply > p.ply) this.pending = null;  // stored before the drop: never sent twice
      else if (s.ply === p.ply && s.status === "active" && s.turn === this.myColor()) this.sendPending();
      else this.pending = null;
    }
    this.forceBoard = true;
    this.render();
  }

  sendPending() {
    const p = this.pending;
    if (!p) return;
    // the ply makes a repeat harmless: the server refuses a move for a ply that is over
    this.conn.send({ type: "move", move: p.move, ply: p.ply, lag_ms: this.clocks.lagMs(), ref: p.ref });
  }

  /** @param {WsMessage} msg */
  onMessage(msg) {
    this.clocks.onMessage(msg);
    if (this.listeners.some((listener) => listener(msg))) return;
    if (msg.type === "state") {
      const before = this.state;
      const wasLive = this.viewPly === null || this.viewPly >= before.ply;
      this.state = this.withPageWords(/** @type {GameStateJson} */ (msg));
      // a takeback (or another game in the page) leaves a premove nothing to follow
      if (msg.id !== before.id || msg.ply < before.ply) this.board.clearPremove();
      if (this.pending && msg.ply > this.pending.ply) this.pending = null;
      if (wasLive) this.viewPly = null;
      if (msg.id === before.id && msg.ply === before.ply + 1 && msg.fens[before.ply] === before.fens[before.ply]) {
        this.moveArrived(/** @type {GameStateJson} */ (msg), before.ply, wasLive);
      }
      if (before.status === "active" && msg.status !== "active") this.sound.play("end");
      if (msg.id === before.id && (this.offeredToMe(/** @type {GameStateJson} */ (msg)) && !this.offeredToMe(before))) this.sound.play("offer");
      // this player's takeback offer is gone with the position unchanged: the opponent declined
      // it (an accepted one changes the ply); said in the status until the next change
      const me = this.myColor();
      const declined = msg.id === before.id && msg.status === "active" && msg.ply === before.ply
        && Boolean(me) && before.takeback_offer === me && !msg.takeback_offer;
      if (declined) this.takebackDeclinedAt = msg.ply;
      else if (msg.id !== before.id || msg.ply !== before.ply || msg.takeback_offer) this.takebackDeclinedAt = null;
      this.render();
    } else if (msg.type === "presence") {
      // who is online changed: a small message, the rest of the state is unchanged
      this.state = { ...this.state, online: msg.online, absent_since: msg.absent_since };
      this.render();
    } else if (msg.type === "hello" && msg.ref === "seat-link" && this.offeredSeat) {
      // the link's secret opens a seat: it becomes this browser's seat for the game
      const before = /** @type {{color: string}} */ (this.seat).color;
      saveSeat(this.id, msg.you, this.offeredSeat.secret);
      this.seat = { color: msg.you, secret: this.offeredSeat.secret };
      this.closeSeatChoice();
      if (before !== msg.you) this.board.flip();
      this.you = msg.you;
      this.online();
    } else if (msg.type === "error" && msg.ref === "seat-link") {
      // the connection keeps the seat it had
      this.closeSeatChoice();
      this.error(t("The link's secret does not open a seat in this game: your seat is kept ({reason}).", { reason: msg.error }));
    } else if (msg.type === "hello" && msg.ref === "seat" && this.seat && msg.you && msg.you !== this.seat.color) {
      // the secret opens the other seat than the one saved with it (a link whose #seat= was
      // wrong): the server's word is the truth, saved and shown
      saveSeat(this.id, msg.you, this.seat.secret);
      this.seat = { color: msg.you, secret: this.seat.secret };
      this.board.flip();
      this.you = msg.you;
      this.online();
    } else if (msg.type === "hello") {
      this.you = msg.you;
      if (!this.seat || msg.you === this.seat.color) this.online();
    } else if (msg.type === "error") {
      if (this.pending && msg.ref === this.pending.ref) this.pending = null;
      this.error(msg.error);
      this.forceBoard = true;
      this.render();
    } else if (msg.type === "ack") {
      if (this.pending && msg.ref === this.pending.ref) this.pending = null;
      this.error("");
    }
  }

  // A new move at `ply` (the one before it is unchanged): slide it in, sound it, say it.
  /** @param {GameStateJson} s @param {number} ply @param {boolean} live */
  moveArrived(s, ply, live) {
    const move = s.moves[ply];
    // the other side's move slides in; one's own was just made by hand and is shown at once
    if (live && sideToMove(s.fens[ply]) !== this.myColor()) this.nextAnimation = { fen: s.fens[ply], move };
    this.sound.play(move.victims.length ? "capture" : "move");
    announce(this.$("#announce"), `${ply + 1}. ${moveSentence(s.variant, s.fens[ply], move)}`);
  }

  /** @param {string} text */
  error(text) { this.$("#error").textContent = text || ""; }

  /** @param {string} text */
  sendMove(text) {
    this.error("");
    this.pending = { move: text, ply: this.state.ply, ref: ++this.pendingRef };
    if (this.link === "online" && this.conn.open) {
      this.sendPending();
    } else if (this.conn.capped) {
      // no live connection to be had (the server's cap): the move goes by HTTP
      this.pending = null;
      postJSON(`/api/games/${this.id}/moves`, { move: text, ply: this.state.ply, secret: this.seat && this.seat.secret })
        .then((state) => { this.state = this.withPageWords(state); this.viewPly = null; this.render(); })
        .catch((err) => { this.error(err.message); this.forceBoard = true; this.render(); });
    }
    // otherwise the move waits for the connection to come back (see online())
    this.forceBoard = true;
    this.render();
  }

  /** @param {string} name @param {{[field: string]: unknown}} body */
  async action(name, body) {
    this.error("");
    try {
      const state = await postJSON(`/api/games/${this.id}/${name}`, { ...body, secret: this.seat && this.seat.secret });
      if (state.type === "state" && state.ply >= this.state.ply - 2) { this.state = this.withPageWords(state); this.viewPly = null; this.render(); }
    } catch (err) { this.error(err.message); }
  }

  // Whether this player may berserk now: an arena game on, not berserked yet, before their
  // first move (the server checks it again).
  /** @param {string | null} me */
  mayBerserk(me) {
    const s = this.state;
    if (!me || s.status !== "active" || !s.berserkable || (s.berserk && s.berserk[me])) return false;
    const first = (s.start_fen.split(" ")[1] || "w") === "b" ? "black" : "white";
    return s.ply === 0 || (s.ply === 1 && first !== me);
  }

  // What the other player offers this one now: "takeback", "rematch" or null.
  /** @param {GameStateJson} s */
  offeredToMe(s) {
    const me = this.myColor();
    if (!me) return null;
    if (s.status === "active" && s.takeback_offer && s.takeback_offer !== me) return "takeback";
    if (s.status !== "active" && s.rematch_id && !rematchAskedHere(s.rematch_id) && !rematchDeclined(s.rematch_id)) return "rematch";
    return null;
  }

  // Decline a rematch: the new game is called off (each player keeps their seat's secret in
  // it, so this seat's secret, or the account, may abort it); the one who asked sees it aborted.
  async declineRematch() {
    const id = this.state.rematch_id;
    if (!id) return;
    try {
      await postJSON(`/api/games/${id}/abort`, { secret: this.seat && this.seat.secret });
      markRematch(id, "declined");
      this.render();
    } catch (err) { this.error(err.message); }
  }

  async rematch() {
    try {
      const data = await postJSON(`/api/games/${this.id}/rematch`, { secret: this.seat && this.seat.secret });
      markRematch(data.id, "asked");
      saveSeat(data.id, data.color, data.secret);
      location.href = `/game/${data.id}`;
    } catch (err) { this.error(err.message); }
  }

  async evaluate() {
    const out = this.$("#eval");
    out.textContent = t("Thinking…");
    try {
      // while the game lasts only its players may ask (the server checks the seat secret)
      const a = await postJSON(`/api/games/${this.id}/evaluate`, { secret: this.seat && this.seat.secret });
      out.textContent = describeAnalysis(a);
    } catch (err) { out.textContent = err.message; }
  }

  shownPly() { return this.viewPly === null ? this.state.ply : this.viewPly; }

  /** @param {number | null} ply null: the last */
  show(ply) {
    const from = this.shownPly();
    if (ply !== null) ply = Math.max(0, Math.min(ply, this.state.ply));
    const to = ply === null ? this.state.ply : ply;
    // one step forward is played out, as a move arriving would be
    if (to === from + 1) this.nextAnimation = { fen: this.state.fens[from], move: this.state.moves[from] };
    this.viewPly = ply === this.state.ply ? null : ply;
    this.render();
  }

  myColor() { return this.seat ? this.seat.color : null; }

  // The actions that may follow `prefix` in a move at the current ply (a cut legal-move tree).
  /** @param {string[]} prefix @returns {Promise<LegalNode[]>} */
  async fetchNext(prefix) {
    const q = new URLSearchParams({ ply: String(this.state.ply) });
    for (const text of prefix) q.append("prefix", text);
    return (await getJSON(`/api/games/${this.id}/legal?${q}`)).legal;
  }

  render() {
    const s = this.state;
    const ply = this.shownPly();
    const live = this.viewPly === null;
    this.root.dataset.ply = String(s.ply);
    this.root.dataset.shownPly = String(ply);
    this.root.dataset.status = s.status;
    this.root.dataset.turn = s.turn;
    const me = this.myColor();
    this.root.dataset.link = this.link;
    const connected = this.link === "online";
    // a move waiting for its answer, or a dropped connection: no input until it is settled
    const canInput = live && connected && !this.pending && s.status === "active";
    const myTurn = canInput && me === s.turn && s.players[s.turn].kind === "human";
    // while the other side is to move, the player may queue a move (a premove, see board.js)
    const canPremove = canInput && me !== null && me !== s.turn;
    if (s.status !== "active") this.board.clearPremove();
    const key = `${s.id}:${ply}:${s.ply}:${s.status}:${myTurn}:${s.fens[ply]}:${Boolean(s.annotations)}`;
    if (key !== this.boardKey || this.forceBoard) {
      this.boardKey = key;
      this.forceBoard = false;
      const anim = this.nextAnimation;
      this.nextAnimation = null;
      this.motion.cancel();
      const last = ply > 0 ? s.moves[ply - 1] : null;
      this.board.setFen(s.fens[ply]);
      this.board.setHighlight(last ? { from: last.from, to: last.to, victims: last.victims } : null);
      this.motion.setArrows(moveArrows(last));
      this.board.setLegal(myTurn ? s.legal : []);
      // rule marks belong to the current position only, not to a replayed earlier one
      this.extras.update(live ? s.annotations : null, s.captured);
      if (myTurn && s.legal_error) this.error(s.legal_error);  // a position too large to list
      if (anim && anim.move === last) this.motion.play(anim.fen, anim.move);
    }
    this.board.setPremoveSide(canPremove ? me : null);
    this.renderMoves(ply);
    this.renderSide(me, myTurn, live, connected);
    this.clocks.render(s, me);
    for (const hook of this.afterRender) hook();
    // last: a premove played sends the move, which renders the page again
    if (myTurn && this.board.premove) this.board.playPremove();
  }

  /** @param {number} ply */
  renderMoves(ply) {
    const list = this.$("#moves");
    list.replaceChildren();
    const blackFirst = sideToMove(this.state.start_fen) === "black";
    // an imported game's PGN comments and clocks (a comment gets a line of its own)
    /** @type {import("/static/pgnnotes.js").PgnNotes} */
    const notes = this.state.pgn_notes || { comments: {}, clocks: {} };
    if (notes.comments["0"]) list.appendChild(commentNode(notes.comments["0"]));
    /** @type {HTMLDivElement | null} */
    let row = null;
    this.state.moves.forEach((/** @type {MoveView} */ m, /** @type {number} */ i) => {
      const idx = i + (blackFirst ? 1 : 0);
      if (idx % 2 === 0 || row === null) {
        row = document.createElement("div");
        row.className = "row";
        const num = document.createElement("span");
        num.className = "num";
        // a row that starts with Black's move (after a comment, or from a set-up start): "3…"
        num.textContent = `${Math.floor(idx / 2) + 1}${idx % 2 === 1 ? "…" : "."}`;
        row.appendChild(num);
        if (idx % 2 === 1) row.appendChild(document.createElement("span"));
        list.appendChild(row);
      }
      const span = document.createElement("span");
      span.className = "mv" + (i + 1 === ply ? " current" : "");
      span.dataset.ply = String(i + 1);
      span.dataset.move = m.text;
      if (m.victims.length) span.classList.add("capture");
      span.appendChild(moveEntry(this.state.variant, this.state.fens[i], m));
      const mark = this.moveMarks[i];
      if (mark) {
        const tag = document.createElement("span");
        tag.className = "move-mark";
        tag.textContent = mark;
        span.appendChild(tag);
      }
      const clock = notes.clocks[String(i + 1)];
      if (clock !== undefined) span.appendChild(clockNode(clock));
      span.addEventListener("click", () => this.show(i + 1));
      row.appendChild(span);
      const comment = notes.comments[String(i + 1)];
      if (comment) {
        list.appendChild(commentNode(comment));
        row = null;  // the next move starts a row of its own, under the comment
      }
    });
    if (!this.state.moves.length) {
      const empty = document.createElement("div");
      empty.className = "empty";
      empty.textContent = t("No moves yet.");
      list.appendChild(empty);
    }
    const cur = list.querySelector(".current");
    // scroll the list only: scrollIntoView would also scroll the page (on a phone, away from the board)
    if (cur) {
      const box = list.getBoundingClientRect(), at = cur.getBoundingClientRect();
      if (at.bottom > box.bottom) list.scrollTop += at.bottom - box.bottom;
      else if (at.top < box.top) list.scrollTop -= box.top - at.top;
    }
  }

  /** @param {string | null} me @param {boolean} myTurn @param {boolean} live @param {boolean} connected */
  renderSide(me, myTurn, live, connected) {
    const s = this.state;
    this.$("#connection").hidden = this.link !== "reconnecting";
    const players = this.$("#players");
    players.replaceChildren();
    for (const color of ["white", "black"]) {
      const p = s.players[color];
      const div = document.createElement("div");
      // an account's name (with its rating) first, then the display name the player chose
      const name = accountLabel(p.user) || p.name;
      // the computer's seat is held by its house bot's account at levels 1 and up
      const who = p.kind === "engine" && !p.user ? (p.level === 0 ? t("Computer (level 0, random)") : t("Computer (level {level})", { level: p.level }))
        : name ? (me === color ? t("{name} (you)", { name }) : name) : (me === color ? t("You") : (me ? t("Your opponent") : t("Player")));
      // offline, who else is there is not known: the dots go grey
      const on = connected && (p.kind === "engine" || s.online[color]);
      div.innerHTML = `<span><span class="dot ${on ? "on" : ""}"></span></span><span></span>`;
      /** @type {HTMLElement} */ (div.firstChild).append(colorName(color));
      /** @type {HTMLElement} */ (div.lastChild).textContent = who;
      players.appendChild(div);
    }
    if (s.rated) {
      const div = document.createElement("div");
      div.className = "rated-note";
      div.textContent = t("Rated game");
      players.appendChild(div);
    }
    for (const color of ["white", "black"]) {
      if (!s.berserk || !s.berserk[color]) continue;
      const div = document.createElement("div");
      div.className = "rated-note berserk-note";
      div.dataset.color = color;
      div.textContent = t("{side} berserked: half the time, no increment", { side: colorName(color) });
      players.appendChild(div);
    }
    if (s.imported) {
      const div = document.createElement("div");
      div.className = "rated-note imported-note";
      div.textContent = t("Imported game (from a PGN, unrated)");
      players.appendChild(div);
    }
    let status = "";
    if (this.link === "reconnecting") {
      status = t("Connection lost — reconnecting…");
    } else if (this.pending) {
      status = t("Sending your move…");
    } else if (s.status === "active") {
      const turn = colorName(s.turn);
      if (!me) status = t("{side} to move — you are watching", { side: turn });
      else if (myTurn) status = t("Your move");
      else if (s.players[s.turn].kind === "engine") status = t("The computer is thinking…");
      else if (!s.online[s.turn]) status = t("{side} to move — waiting for your opponent to join", { side: turn });
      else status = t("{side} to move — waiting for your opponent", { side: turn });
      const premove = this.board.premove;
      if (premove && !myTurn) status += " · " + t("premove {from}–{to}, played when your turn comes (right click or Escape takes it back)", premove);
      if (!live) status += " " + t("(showing move {ply} of {plies})", { ply: this.shownPly(), plies: s.ply });
    } else {
      status = s.status === "aborted" ? t("Game aborted") : t("Game over ({result})", { result: s.result });
    }
    this.$("#status").textContent = status;
    // an imported game has no reason of this site's (its PGN's Termination is in s.termination)
    const why = s.reason ? t(s.reason) : (s.imported ? t("imported game") : "");
    this.$("#banner").textContent = s.status === "finished" ? `${s.result} · ${why}` : (s.status === "aborted" ? why : "");
    const invite = localStorage.getItem(INVITE_KEY(this.id));
    const opponent = me === "white" ? "black" : "white";
    const showInvite = Boolean(invite && me && s.status === "active" && !s.online[opponent]);
    this.$("#invite").hidden = !showInvite;
    if (invite) this.$("#invite-link").value = invite;
    const active = s.status === "active";
    this.$("#resign").hidden = !me || !active;
    this.$("#berserk").hidden = !this.mayBerserk(me);
    // while an offer is pending, either side's, the answer buttons take the offer button's place
    this.$("#takeback").hidden = !me || !active || Boolean(s.takeback_offer) || s.time_control.kind !== "none";
    const offered = active && me && s.takeback_offer && s.takeback_offer !== me;
    this.$("#accept-takeback").hidden = !offered;
    this.$("#decline-takeback").hidden = !offered;
    if (active && me && s.takeback_offer === me) this.$("#status").textContent += " · " + t("takeback offered");
    if (active && me && !s.takeback_offer && this.takebackDeclinedAt === s.ply) {
      this.$("#status").textContent += " · " + t("takeback declined");
    }
    if (offered) this.$("#status").textContent += " · " + t("your opponent asks to take back a move");
    this.$("#typed").hidden = !myTurn;
    // actions that need the server wait for the connection
    for (const id of ["#resign", "#berserk", "#takeback", "#accept-takeback", "#decline-takeback", "#rematch", "#typed-move"]) {
      this.$(id).disabled = !connected;
    }
    const rematch = this.$("#rematch");
    const declined = Boolean(s.rematch_id && rematchDeclined(s.rematch_id));
    rematch.hidden = !me || active || declined;
    const rematchOffered = this.offeredToMe(s) === "rematch";
    rematch.textContent = rematchOffered ? t("Accept the rematch") : (s.rematch_id ? t("Join the rematch") : t("Rematch"));
    this.$("#decline-rematch").hidden = !rematchOffered;
    this.$("#decline-rematch").disabled = !connected;
    if (rematchOffered) this.$("#status").textContent += " · " + t("your opponent offers a rematch");
    if (declined) this.$("#status").textContent += " · " + t("rematch declined");
    // fair play: no engine in a game between people, or a rated one (against a house bot), while
    // it is on (the server refuses it too)
    const people = s.players.white.kind === "human" && s.players.black.kind === "human";
    const barred = active && (people || s.rated);
    this.$("#evaluate").hidden = barred;
    this.$("#analyse").hidden = barred;
    this.$("#analysis-later").hidden = !(barred && people);
    this.$("#analysis-later-rated").hidden = !barred || people;
    if (barred) this.$("#eval").textContent = "";
  }
}
