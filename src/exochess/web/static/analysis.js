// @ts-check
// The analysis board: any FEN, free moves for both sides, engine evaluation and best line.
import { postJSON } from "/static/api.js";
import { BoardView, describeAnalysis, glyphsFor, sideToMove } from "/static/board.js";
import { t } from "/static/i18n.js";
import { BoardKeys, announce } from "/static/keyboard.js";
import { BoardExtras } from "/static/legend.js";
import { Motion, moveArrows } from "/static/motion.js";
import { moveEntry, moveSentence } from "/static/movewords.js";
import { LiveAnalysis } from "/static/liveanalysis.js";
import { clockNode, commentNode, notesForLine } from "/static/pgnnotes.js";
import { Sound } from "/static/sound.js";

// The line in the page's address: ?variant=...&fen=<start>&moves=<move texts, space separated>
// (&game=<id>: the game it comes from, which the live analysis names for the fair-play check).
/** @param {string} search @returns {{moves: string[], game: string | null}} */
export function lineFromURL(search) {
  const q = new URLSearchParams(search);
  const moves = (q.get("moves") || "").split(" ").filter(Boolean);
  return { moves, game: q.get("game") };
}

/**
 * @param {string} variant @param {string | null} fen @param {string[]} moves @param {string | null} [game]
 * @returns {string}
 */
export function lineURL(variant, fen, moves, game = null) {
  const q = new URLSearchParams({ variant });
  if (fen) q.set("fen", fen);
  if (moves.length) q.set("moves", moves.join(" "));
  if (game) q.set("game", game);
  return `/analysis?${q}`;
}

export class AnalysisPage {
  /** @param {any} root the page's element (its inputs are found by id) @param {VariantInfo[]} variants */
  constructor(root, variants) {
    this.root = root;
    this.variants = variants;
    this.board = null;
    // the page's address carries the start (filled in #fen by the server) and the moves
    const line = lineFromURL(location.search);
    this.moves = line.moves;
    this.game = line.game;
    this.fromURL = this.moves.length > 0;
    this.fen = root.querySelector("#fen").value.trim() || null;
    this.variantName = root.querySelector("#variant").value;
    this.shown = null;
    this.sound = new Sound();
    this.sound.bindSwitch(root.querySelector("#sound"));
    root.querySelector("#variant").addEventListener("change", (/** @type {Event} */ e) => {
      this.variantName = /** @type {HTMLSelectElement} */ (e.target).value; this.fen = null; this.game = null; root.querySelector("#fen").value = ""; this.moves = []; this.load();
    });
    root.querySelector("#load").addEventListener("click", () => {
      // the field shows the current position: setting it starts a new line from there
      this.fen = root.querySelector("#fen").value.trim() || null; this.moves = []; this.game = null; this.load();
    });
    root.querySelector("#reset").addEventListener("click", () => {
      this.fen = null; root.querySelector("#fen").value = ""; this.moves = []; this.game = null; this.load();
    });
    root.querySelector("#undo").addEventListener("click", () => { this.moves.pop(); this.load(); });
    root.querySelector("#flip").addEventListener("click", () => {
      if (!this.board) return;
      this.board.flip();
      const link = root.querySelector("#diagram");
      const q = new URLSearchParams(link.search);
      if (this.board.flipped) q.set("flipped", "true"); else q.delete("flipped");
      link.search = `?${q}`;
    });
    root.querySelector("#engine").addEventListener("click", () => this.evaluate());
    this.live = new LiveAnalysis(root, (moves) => { this.moves.push(...moves); this.load(); });
    this.load();
  }

  /** The game chosen in the menu (the menu lists only the server's games). @returns {VariantInfo} */
  variant() {
    return /** @type {VariantInfo} */ (this.variants.find((v) => v.name === this.variantName));
  }

  async load() {
    const err = this.root.querySelector("#error");
    err.textContent = "";
    let pos;
    const fromURL = this.fromURL;
    this.fromURL = false;
    try {
      pos = await postJSON("/api/position", { variant: this.variantName, fen: this.fen, moves: this.moves });
    } catch (e) {
      if (fromURL) {
        // a link whose line does not replay: say so, and show its start position
        this.moves = [];
        await this.load();
        err.textContent = t("The link's moves could not be played: {reason}", { reason: e.message });
        return;
      }
      err.textContent = e.message;
      if (this.moves.length) { this.moves.pop(); }
      return;
    }
    const before = this.pos;
    this.pos = pos;
    const v = this.variant();
    if (!this.board || this.boardVariant !== v.name) {
      this.boardVariant = v.name;
      const holder = this.root.querySelector("#board");
      holder.replaceChildren();
      this.board = new BoardView(holder, { width: v.width, height: v.height, pieceNames: v.piece_names,
        royal: v.royal, glyphs: glyphsFor(v.name), onMove: (/** @type {string} */ text) => { this.moves.push(text); this.load(); },
        // a cut legal-move tree: the same position again, with the actions entered so far
        fetchNext: async (/** @type {string[]} */ prefix) => (await postJSON("/api/position",
          { variant: this.variantName, fen: this.fen, moves: this.moves, prefix })).legal,
        onError: (/** @type {string} */ message) => { this.root.querySelector("#error").textContent = message; } });
      this.motion = new Motion(this.board);
      this.keys = new BoardKeys(this.board, v);
      if (this.extras) this.extras.setVariant(v, this.board); else this.extras = new BoardExtras(this.root, v, this.board);
      const name = document.getElementById("game-name");
      if (name) name.textContent = `· ${v.title}`;
      // (the text outside the template literal: the catalogue's extraction reads only plain calls)
      const board = t("Analysis board");
      document.title = [v.title, board, "exochess"].join(" · ");
    }
    const last = pos.moves[pos.moves.length - 1];
    // one move more on the same line (made here by hand, so shown at once): sounded and announced
    const added = before && last && before.fen === pos.fens[pos.ply - 1] && before.ply + 1 === pos.ply
      && before.variant.name === pos.variant.name;
    this.board.setFen(pos.fen);
    this.board.setHighlight(last ? { from: last.from, to: last.to, victims: last.victims } : null);
    this.motion?.setArrows(moveArrows(last));  // made with the board, before any position
    this.board.setLegal(pos.legal);
    if (added) {
      this.sound.play(pos.result ? "end" : (last.victims.length ? "capture" : "move"));
      announce(this.root.querySelector("#announce"), moveSentence(v, pos.fens[pos.ply - 1], last));
    }
    this.extras?.update(pos.annotations, pos.captured);
    this.root.dataset.fen = pos.fen;
    this.root.dataset.ply = String(pos.ply);
    // the address and the FEN field follow the line: the link can be shared, reloading keeps it
    history.replaceState(null, "", lineURL(this.variantName, this.fen, this.moves, this.game));
    this.root.querySelector("#to-editor").href = `/editor/${this.variantName}?${new URLSearchParams({ fen: pos.fen })}`;
    if (pos.result) this.live.gameOver();
    else this.live.setPosition({ variant: this.variantName, fen: this.fen, moves: this.moves, game: this.game });
    this.root.querySelector("#fen").value = pos.fen;
    const diagram = new URLSearchParams({ variant: this.variantName, fen: pos.fen });
    if (this.board.flipped) diagram.set("flipped", "true");
    this.root.querySelector("#diagram").href = `/analysis/diagram.svg?${diagram}`;
    const turn = pos.turn === "white" ? t("White") : t("Black");
    this.root.querySelector("#status").textContent = pos.result ? `${pos.result} · ${t(pos.reason)}`
      : t("{side} to move · FEN: {fen}", { side: turn, fen: pos.fen });
    const list = this.root.querySelector("#moves");
    list.replaceChildren();
    const blackFirst = sideToMove(pos.start_fen) === "black";
    // the comments and clocks of a PGN opened here from the import page, while the line follows it
    const notes = notesForLine(this.variantName, pos.start_fen, this.moves) || { comments: {}, clocks: {} };
    if (notes.comments["0"]) list.appendChild(commentNode(notes.comments["0"]));
    pos.moves.forEach((/** @type {MoveView} */ m, /** @type {number} */ i) => {
      const idx = i + (blackFirst ? 1 : 0);
      const span = document.createElement("span");
      span.className = "mv" + (m.victims.length ? " capture" : "");
      span.dataset.ply = String(i + 1);
      span.dataset.move = m.text;
      span.textContent = idx % 2 === 0 ? `${Math.floor(idx / 2) + 1}. ` : (i === 0 ? `${Math.floor(idx / 2) + 1}… ` : "");
      span.appendChild(moveEntry(v, pos.fens[i], m));
      const clock = notes.clocks[String(i + 1)];
      if (clock !== undefined) span.appendChild(clockNode(clock));
      span.appendChild(document.createTextNode(" "));
      span.addEventListener("click", () => { this.moves = this.moves.slice(0, i + 1); this.load(); });
      list.appendChild(span);
      const comment = notes.comments[String(i + 1)];
      if (comment) list.appendChild(commentNode(comment, "span"));
    });
    this.root.querySelector("#eval").textContent = "";
  }

  async evaluate() {
    const out = this.root.querySelector("#eval");
    out.textContent = t("Thinking…");
    try {
      const a = await postJSON("/api/analyse", { variant: this.variantName, fen: this.fen, moves: this.moves, movetime_ms: 1500 });
      out.textContent = describeAnalysis(a);
    } catch (e) { out.textContent = e.message; }
  }
}
