// @ts-check
// A lesson stage: its exercises one after another on the site's board. The server judges each
// move (/api/learn/<game>/<stage>/<n>): any move that reaches the goal solves the exercise, the
// opponent's scripted replies come back with the position, and stars count the moves used.
import { postJSON } from "/static/api.js";
import { BoardView, glyphsFor } from "/static/board.js";
import { t } from "/static/i18n.js";
import { BoardKeys, announce } from "/static/keyboard.js";
import { exerciseStars, recordStage, starText } from "/static/learnprogress.js";
import { BoardExtras } from "/static/legend.js";
import { Motion, moveArrows } from "/static/motion.js";
import { moveSentence } from "/static/movewords.js";
import { Sound } from "/static/sound.js";

export class LessonPage {
  /**
   * @param {any} root the page's element (its parts are found by id)
   * @param {any} lesson the stage as the page's JSON gives it (its exercises, hints...)
   * @param {VariantInfo[]} variants
   */
  constructor(root, lesson, variants) {
    this.root = root;
    this.lesson = lesson;
    this.variant = /** @type {VariantInfo} */ (variants.find((v) => v.name === lesson.variant));
    this.sound = new Sound();
    this.sound.bindSwitch(root.querySelector("#sound"));
    const holder = root.querySelector("#board");
    const v = this.variant;
    this.board = new BoardView(holder, { width: v.width, height: v.height, pieceNames: v.piece_names,
      royal: v.royal, glyphs: glyphsFor(v.name), onMove: (/** @type {string} */ text) => this.play(text),
      fetchNext: async (/** @type {string[]} */ prefix) => (await this.ask(this.moves, prefix)).position.legal,
      onError: (/** @type {string} */ message) => { this.$("#error").textContent = message; } });
    this.motion = new Motion(this.board);
    this.keys = new BoardKeys(this.board, v);
    this.extras = new BoardExtras(root, v, this.board);
    this.$("#show-hint").addEventListener("click", () => { this.$("#hint").hidden = false; });
    this.$("#retry").addEventListener("click", () => this.restart());
    this.$("#next").addEventListener("click", () => this.open(this.index + 1));
    this.$("#replay").addEventListener("click", () => { this.results = /** @type {number[]} */ ([]); this.open(0); });
    /** @type {number[]} stars per exercise solved */
    this.results = [];
    /** @type {string[]} */
    this.moves = [];
    this.shown = null;
    this.intro = "";
    this.index = 0;
    this.spent = 0;
    this.drawSteps();
    this.open(0);
  }

  /** @param {string} sel */
  $(sel) { return this.root.querySelector(sel); }

  exercise() { return this.lesson.exercises[this.index]; }

  /** @param {string[]} moves @param {string[]} [prefix] @returns {Promise<any>} */
  ask(moves, prefix = []) {
    const url = `/api/learn/${this.lesson.variant}/${this.lesson.stage}/${this.index + 1}`;
    return postJSON(url, { moves, prefix, spent: this.spent });
  }

  drawSteps() {
    const steps = this.$("#steps");
    steps.replaceChildren();
    this.lesson.exercises.forEach((/** @type {unknown} */ _, /** @type {number} */ i) => {
      const li = document.createElement("li");
      const stars = this.results[i];
      li.className = "step" + (i === this.index ? " current" : "") + (stars ? " solved" : "");
      li.textContent = stars ? starText(stars) : String(i + 1);
      li.setAttribute("aria-label", stars ? t("Exercise {n}: {stars} of 3 stars", { n: i + 1, stars })
        : t("Exercise {n}", { n: i + 1 }));
      if (i === this.index) li.setAttribute("aria-current", "step");
      steps.appendChild(li);
    });
  }

  /** @param {number} index */
  open(index) {
    this.index = index;
    this.spent = 0;
    this.$("#done").hidden = true;
    this.$("#next").hidden = true;
    this.$("#retry").hidden = false;
    this.$("#show-hint").hidden = false;
    this.$("#hint").hidden = true;
    this.$("#hint").textContent = this.exercise().hint;
    this.$("#explanation").hidden = true;
    this.$("#task").textContent = this.exercise().task;
    // an exercise that starts in the middle of a game lists the moves already played (they
    // count for the repetition rules)
    const history = this.exercise().history || [];
    this.$("#history").textContent = history.length ? t("Moves already played: {moves}", { moves: history.join(" ") }) : "";
    this.$("#history").hidden = !history.length;
    this.drawSteps();
    // said with the first position's status (announcing it here would be overwritten by it)
    this.intro = t("Exercise {n} of {count}: {task}", { n: index + 1, count: this.lesson.exercises.length, task: this.exercise().task });
    this.restart();
  }

  restart() {
    this.moves = [];
    this.shown = null;
    this.load();
  }

  /** @param {string} text */
  play(text) {
    this.moves.push(text);
    this.load();
  }

  async load() {
    this.$("#error").textContent = "";
    let reply;
    try {
      reply = await this.ask(this.moves);
    } catch (e) {
      this.$("#error").textContent = e.message;
      if (this.moves.length) { this.moves.pop(); this.board.setLegal(this.shown ? this.shown.position.legal : []); }
      return;
    }
    const before = this.shown;
    this.shown = reply;
    const pos = reply.position;
    this.root.dataset.fen = pos.fen;
    this.root.dataset.exercise = String(this.index + 1);
    this.root.dataset.used = String(reply.used);
    this.root.dataset.status = reply.status;
    this.board.setFen(pos.fen);
    const last = pos.moves[pos.moves.length - 1];
    this.board.setHighlight(last ? { from: last.from, to: last.to, victims: last.victims } : null);
    this.motion.setArrows(moveArrows(last));
    this.board.setLegal(pos.legal);
    this.extras.update(pos.annotations, pos.captured);
    const said = [];
    if (before && pos.moves.length > before.position.moves.length) {
      // the learner's move, and the opponent's reply when there is one
      for (let i = before.position.moves.length; i < pos.moves.length; i++) said.push(moveSentence(this.variant, pos.fens[i], pos.moves[i]));
      this.sound.play(last.victims.length ? "capture" : "move");
    }
    const ex = this.exercise();
    let status;
    if (reply.status === "solved") {
      const stars = reply.stars || exerciseStars(ex.par, reply.used + this.spent);
      this.results[this.index] = stars;
      status = reply.used === 1 ? t("Solved in one move: {stars} of 3 stars.", { stars })
        : t("Solved in {moves} moves: {stars} of 3 stars.", { moves: reply.used, stars });
      this.$("#explanation").textContent = ex.explanation;
      this.$("#explanation").hidden = false;
      this.$("#retry").hidden = true;
      this.$("#show-hint").hidden = true;
      this.drawSteps();
      if (this.index + 1 < this.lesson.exercises.length) {
        this.$("#next").hidden = false;
        this.$("#next").focus();
      } else {
        this.finish();
      }
      this.sound.play("end");
    } else if (reply.status === "failed") {
      this.spent += reply.used;
      status = reply.reason === "game over" ? t("The game is over and the goal was not reached. Try again.")
        : t("Not this time: the goal is not reached in {limit} moves. Try again.", { limit: ex.limit });
      this.$("#hint").hidden = false;
    } else {
      status = ex.limit > 1 ? t("Your move ({used} of {limit} moves used).", { used: reply.used, limit: ex.limit }) : t("Your move.");
    }
    this.$("#status").textContent = status;
    if (this.intro) { said.unshift(this.intro); this.intro = ""; }
    said.push(status);
    announce(this.$("#announce"), said.join(" "));
  }

  async finish() {
    const stars = Math.min(...this.results);
    this.$("#done").hidden = false;
    this.$("#done-stars").textContent = starText(stars);
    this.$("#done-stars").setAttribute("aria-label", t("{stars} of 3 stars", { stars }));
    const next = this.$("#next-stage");
    if (this.lesson.next) { next.href = `/learn/${this.lesson.variant}/${this.lesson.next}`; next.hidden = false; }
    await recordStage(this.lesson.variant, this.lesson.stage, stars);
    this.root.dataset.saved = "true";
  }
}
