// The analysis board: any FEN, free moves for both sides, engine evaluation and best line.
import { postJSON } from "/static/api.js";
import { BoardView, describeAnalysis, glyphsFor, sideToMove } from "/static/board.js";
import { t } from "/static/i18n.js";

export class AnalysisPage {
  constructor(root, variants) {
    this.root = root;
    this.variants = variants;
    this.board = null;
    this.moves = [];
    this.fen = root.querySelector("#fen").value.trim() || null;
    this.variantName = root.querySelector("#variant").value;
    this.shown = null;
    root.querySelector("#variant").addEventListener("change", (e) => {
      this.variantName = e.target.value; this.fen = null; root.querySelector("#fen").value = ""; this.moves = []; this.load();
    });
    root.querySelector("#load").addEventListener("click", () => {
      this.fen = root.querySelector("#fen").value.trim() || null; this.moves = []; this.load();
    });
    root.querySelector("#reset").addEventListener("click", () => {
      this.fen = null; root.querySelector("#fen").value = ""; this.moves = []; this.load();
    });
    root.querySelector("#undo").addEventListener("click", () => { this.moves.pop(); this.load(); });
    root.querySelector("#flip").addEventListener("click", () => this.board && this.board.flip());
    root.querySelector("#engine").addEventListener("click", () => this.evaluate());
    this.load();
  }

  variant() { return this.variants.find((v) => v.name === this.variantName); }

  async load() {
    const err = this.root.querySelector("#error");
    err.textContent = "";
    let pos;
    try {
      pos = await postJSON("/api/position", { variant: this.variantName, fen: this.fen, moves: this.moves });
    } catch (e) {
      err.textContent = e.message;
      if (this.moves.length) { this.moves.pop(); }
      return;
    }
    this.pos = pos;
    const v = this.variant();
    if (!this.board || this.boardVariant !== v.name) {
      this.boardVariant = v.name;
      const holder = this.root.querySelector("#board");
      holder.replaceChildren();
      this.board = new BoardView(holder, { width: v.width, height: v.height, pieceNames: v.piece_names,
        royal: v.royal, glyphs: glyphsFor(v.name), onMove: (text) => { this.moves.push(text); this.load(); },
        // a cut legal-move tree: the same position again, with the actions entered so far
        fetchNext: async (prefix) => (await postJSON("/api/position",
          { variant: this.variantName, fen: this.fen, moves: this.moves, prefix })).legal,
        onError: (message) => { this.root.querySelector("#error").textContent = message; } });
    }
    this.board.setFen(pos.fen);
    const last = pos.moves[pos.moves.length - 1];
    this.board.setHighlight(last ? { from: last.from, to: last.to, victims: last.victims } : null);
    this.board.setLegal(pos.legal);
    this.root.dataset.fen = pos.fen;
    this.root.dataset.ply = String(pos.ply);
    const turn = pos.turn === "white" ? t("White") : t("Black");
    this.root.querySelector("#status").textContent = pos.result ? `${pos.result} · ${t(pos.reason)}`
      : t("{side} to move · FEN: {fen}", { side: turn, fen: pos.fen });
    const list = this.root.querySelector("#moves");
    list.replaceChildren();
    const blackFirst = sideToMove(pos.start_fen) === "black";
    pos.moves.forEach((m, i) => {
      const idx = i + (blackFirst ? 1 : 0);
      const span = document.createElement("span");
      span.className = "mv";
      span.textContent = (idx % 2 === 0 ? `${Math.floor(idx / 2) + 1}. ` : (i === 0 ? `${Math.floor(idx / 2) + 1}… ` : "")) + m.text + " ";
      span.addEventListener("click", () => { this.moves = this.moves.slice(0, i + 1); this.load(); });
      list.appendChild(span);
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
