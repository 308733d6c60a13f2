// @ts-check
// A puzzle page (/puzzles/<game>, its streak, its daily puzzle, one puzzle by id) on the site's
// board. The server judges each move (/api/puzzles/<game>/<id>/attempt): a right move brings the
// opponent's reply, which plays itself; a wrong one fails the puzzle, and "View the solution"
// plays the whole line. Ratings: the account's on the server, a guest's in this browser
// (puzzlerating.js), updated by the server's answer.
import { getJSON, postJSON } from "/static/api.js";
import { BoardView, glyphsFor } from "/static/board.js";
import { t } from "/static/i18n.js";
import { BoardKeys, announce } from "/static/keyboard.js";
import { BoardExtras } from "/static/legend.js";
import { Motion, moveArrows } from "/static/motion.js";
import { moveSentence } from "/static/movewords.js";
import { guestGame, guestRating, recordGuest } from "/static/puzzlerating.js";
import { Sound } from "/static/sound.js";

const REPLY_DELAY_MS = 450;
const SOLUTION_STEP_MS = 800;

const wait = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class PuzzlePage {
  /**
   * @param {any} root the page's element (its parts are found by id)
   * @param {any} data the page's JSON: variant, mode, themes (name -> words), signed_in, puzzle?, theme?
   * @param {VariantInfo[]} variants
   */
  constructor(root, data, variants) {
    this.root = root;
    this.data = data;
    this.game = data.variant;
    this.mode = data.mode;
    this.signedIn = Boolean(data.signed_in);
    this.variant = /** @type {VariantInfo} */ (variants.find((v) => v.name === data.variant));
    this.sound = new Sound();
    this.sound.bindSwitch(root.querySelector("#sound"));
    const v = this.variant;
    this.board = new BoardView(root.querySelector("#board"), { width: v.width, height: v.height,
      pieceNames: v.piece_names, royal: v.royal, glyphs: glyphsFor(v.name),
      onMove: (/** @type {string} */ text) => this.play(text),
      fetchNext: async (/** @type {string[]} */ prefix) => (await this.ask(this.moves, prefix)).position.legal,
      onError: (/** @type {string} */ message) => this.error(message) });
    this.motion = new Motion(this.board);
    this.keys = new BoardKeys(this.board, v);
    this.extras = new BoardExtras(root, v, this.board);
    this.streak = 0;
    /** @type {string[]} */
    this.streakSeen = [];
    /** @type {any} the puzzle shown, as /api/puzzles/<game>/next gives it */
    this.puzzle = null;
    /** @type {string[]} the solver's moves so far */
    this.moves = [];
    /** @type {any} the last answer (its position) */
    this.shown = null;
    this.rated = false;
    this.best = 0;
    this.over = false;
    this.$("#solution").addEventListener("click", () => this.showSolution());
    this.$("#next").addEventListener("click", () => this.loadNext());
    this.$("#retry").addEventListener("click", () => this.start(false));
    const restart = this.root.querySelector("#restart");
    if (restart) restart.addEventListener("click", () => { this.streak = 0; this.loadNext(); });
    this.showStanding(null);
    this.loadNext();
  }

  /** @param {string} sel */
  $(sel) { return this.root.querySelector(sel); }

  /** @param {string} message */
  error(message) { this.$("#error").textContent = message; }

  // The URL of the next puzzle: by id, today's, a streak's step or one near the player's rating.
  nextUrl() {
    const base = `/api/puzzles/${this.game}`;
    if (this.mode === "one" && !this.puzzle) return `${base}/${encodeURIComponent(this.data.puzzle)}`;
    if (this.mode === "daily" && !this.puzzle) return `${base}/daily`;
    const q = new URLSearchParams();
    if (this.mode === "streak") {
      q.set("streak", String(this.streak));
      q.set("exclude", this.streakSeen.join(","));
    } else {
      if (this.data.theme) q.set("theme", this.data.theme);
      if (!this.signedIn) {
        const g = guestGame(this.game);
        q.set("rating", String(Math.round(g.rating)));
        q.set("exclude", g.seen.join(","));
      }
    }
    return `${base}/next?${q}`;
  }

  async loadNext() {
    this.error("");
    if (this.mode === "streak" && this.streak === 0) this.streakSeen = [];
    let puzzle;
    try { puzzle = await getJSON(this.nextUrl()); } catch (e) { this.error(e.message); return; }
    this.puzzle = puzzle;
    if (this.mode === "streak") this.streakSeen.push(puzzle.id);
    this.rated = this.mode !== "streak";
    this.start(true);
  }

  // The puzzle from its position; `first`: its first attempt (a retry after a failure is not rated).
  /** @param {boolean} first */
  start(first) {
    const p = this.puzzle;
    if (!first) this.rated = false;
    this.moves = [];
    this.over = false;
    this.shown = { position: p.position };
    this.root.dataset.puzzle = p.id;
    this.root.dataset.status = "playing";
    delete this.root.dataset.solution;
    this.board.flipped = p.color === "black";
    this.show(p.position, p.position.fens.length - 1, true);
    this.$("#task").textContent = p.color === "white" ? t("White to move: find the best line.") : t("Black to move: find the best line.");
    this.$("#about").textContent = p.moves === 1 ? t("Puzzle rating {rating} · one move to find", { rating: p.rating })
      : t("Puzzle rating {rating} · {moves} moves to find", { rating: p.rating, moves: p.moves });
    this.showThemes(false);
    this.$("#status").textContent = t("Your move.");
    this.$("#next").hidden = true;
    this.$("#retry").hidden = true;
    this.$("#solution").hidden = false;
    const restart = this.root.querySelector("#restart");
    if (restart) restart.hidden = true;
    this.showStreak();
    announce(this.$("#announce"), [this.$("#task").textContent, this.$("#about").textContent].join(" "));
  }

  // The themes are shown once the puzzle is over (before, they would give it away).
  /** @param {boolean} on */
  showThemes(on) {
    const list = this.$("#puzzle-themes");
    list.replaceChildren();
    for (const name of on ? this.puzzle.themes : []) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/puzzles/${this.game}?theme=${encodeURIComponent(name)}`;
      a.textContent = this.data.themes[name] || name;
      li.appendChild(a);
      list.appendChild(li);
    }
    list.hidden = !on;
  }

  // The position `pos` at ply `index` of its line (legal moves only at its end, while playing).
  /** @param {any} pos @param {number} index @param {boolean} last */
  show(pos, index, last) {
    this.board.setFen(pos.fens[index]);
    const move = index > 0 ? pos.moves[index - 1] : null;
    this.board.setHighlight(move ? { from: move.from, to: move.to, victims: move.victims } : null);
    this.motion.setArrows(moveArrows(move));
    this.board.setLegal(last && !this.over ? pos.legal : []);
    if (last) this.extras.update(pos.annotations, pos.captured);
    this.root.dataset.fen = pos.fens[index];
    this.root.dataset.plies = String(index);
  }

  /** @param {string[]} moves @param {string[]} [prefix] @returns {Promise<any>} */
  ask(moves, prefix = []) {
    const url = `/api/puzzles/${this.game}/${this.puzzle.id}/attempt`;
    return postJSON(url, this.body({ moves, prefix }));
  }

  /** @param {{[key: string]: unknown}} extra @returns {{[key: string]: unknown}} */
  body(extra) {
    /** @type {{[key: string]: unknown}} */
    const body = { mode: this.mode === "streak" ? "streak" : "rated", streak: this.streak, ...extra };
    if (!this.signedIn && this.rated) body.guest = guestRating(this.game);
    return body;
  }

  /** @param {string} text */
  async play(text) {
    this.moves.push(text);
    this.error("");
    this.board.setLegal([]);
    let reply;
    try {
      reply = await this.ask(this.moves);
    } catch (e) {
      this.error(e.message);
      this.moves.pop();
      this.board.setLegal(this.shown.position.legal);
      return;
    }
    const before = this.shown.position;
    this.shown = reply;
    const pos = reply.position;
    const said = [];
    const from = before.fens.length - 1;
    this.over = reply.status !== "playing";
    // the player's move, then (after a pause) the opponent's reply
    for (let i = from + 1; i < pos.fens.length; i++) {
      const last = i === pos.fens.length - 1;
      if (i > from + 1) await wait(REPLY_DELAY_MS);
      this.show(pos, i, last);
      this.motion.play(pos.fens[i - 1], pos.moves[i - 1]);
      this.sound.play(pos.moves[i - 1].victims.length ? "capture" : "move");
      said.push(moveSentence(this.variant, pos.fens[i - 1], pos.moves[i - 1]));
    }
    let status;
    if (reply.status === "solved") {
      status = reply.alternative ? t("Solved! Your move wins as well as the solution's.") : t("Solved!");
      this.finish(true, reply);
    } else if (reply.status === "failed") {
      status = t("That is not the move. The puzzle is failed.");
      this.finish(false, reply);
    } else {
      status = t("Right! Keep going.");
    }
    this.$("#status").textContent = status;
    this.root.dataset.status = reply.status;
    said.push(status);
    announce(this.$("#announce"), said.join(" "));
  }

  // A finished attempt: what it changed (the rating, the streak) and the buttons that follow.
  /** @param {boolean} solved @param {any} reply */
  finish(solved, reply) {
    this.over = true;
    this.board.setLegal([]);
    this.showThemes(true);
    if (this.mode === "streak") {
      if (solved) this.streak += 1;
      const best = reply.best_streak ?? guestGame(this.game).best_streak;
      if (!this.signedIn) recordGuest(this.game, this.puzzle.id, solved, null, this.streak);
      this.best = Math.max(best || 0, this.streak);
      this.showStreak();
      if (!solved) {
        this.$("#restart").hidden = false;
        this.$("#status").dataset.over = "true";
      } else {
        this.$("#next").hidden = false;
      }
    } else {
      if (!this.signedIn && reply.rating !== undefined) {
        recordGuest(this.game, this.puzzle.id, solved, this.rated ? reply.rating : null);
      }
      this.$("#next").hidden = false;
      if (!solved) this.$("#retry").hidden = false;
      if (reply.rating) this.showStanding(reply.rating);
    }
    this.$("#solution").hidden = solved;
    this.sound.play("end");
    if (solved) this.$("#next").focus();
  }

  showStreak() {
    const el = this.root.querySelector("#streak");
    if (!el) return;
    const best = Math.max(this.best || 0, this.signedIn ? 0 : guestGame(this.game).best_streak);
    el.textContent = t("Streak: {count} · best: {best}", { count: this.streak, best });
    this.root.dataset.streak = String(this.streak);
  }

  // The player's puzzle rating in this game (and the change a finished puzzle made).
  /** @param {any} change the rating an attempt's answer gives, or null */
  async showStanding(change) {
    const el = this.$("#my-rating");
    let rating;
    if (change) {
      rating = change.rating;
      const diff = change.diff ?? 0;
      el.textContent = t("Your puzzle rating: {rating} ({diff})", { rating, diff: (diff >= 0 ? "+" : "") + String(diff) });
    } else if (this.signedIn) {
      try {
        const me = await getJSON("/api/puzzles/player");
        const g = me.games[this.game];
        rating = g.rating;
        this.best = g.best_streak;
        this.showStreak();
      } catch { return; }
      el.textContent = t("Your puzzle rating: {rating}", { rating });
    } else {
      rating = Math.round(guestGame(this.game).rating);
      el.textContent = t("Your puzzle rating: {rating}", { rating });
    }
    this.root.dataset.rating = String(rating);
  }

  // The whole solution from the puzzle's position, one move at a time (asked before the end, it
  // counts as a failure).
  async showSolution() {
    this.error("");
    let reply;
    try {
      reply = await postJSON(`/api/puzzles/${this.game}/${this.puzzle.id}/solution`, this.body({ moves: this.moves }));
    } catch (e) { this.error(e.message); return; }
    if (reply.recorded) {
      this.$("#status").textContent = t("Puzzle failed: here is the solution.");
      this.root.dataset.status = "failed";
      this.finish(false, reply);
    }
    this.over = true;
    this.$("#solution").hidden = true;
    const pos = reply.position;
    for (let i = 0; i < pos.fens.length; i++) {
      this.show(pos, i, i === pos.fens.length - 1);
      if (i > 0) {
        this.motion.play(pos.fens[i - 1], pos.moves[i - 1]);
        announce(this.$("#announce"), moveSentence(this.variant, pos.fens[i - 1], pos.moves[i - 1]));
      }
      if (i < pos.fens.length - 1) await wait(SOLUTION_STEP_MS);
    }
    this.$("#status").textContent = t("The solution: {moves}", { moves: reply.solution.join(" ") });
    this.root.dataset.solution = "shown";
  }
}
