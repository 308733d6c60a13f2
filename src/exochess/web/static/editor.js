// @ts-check
// The board editor: place and remove any piece of a game, choose the side to move and the extra
// state (Interweave's en passant and reserves), with the FEN box following both ways. The
// library judges every position (POST /api/editor/check): its reason is shown, and the links
// out (analyse, play the computer, challenge a friend) work only on a valid position.
import { postJSON } from "/static/api.js";
import { BoardView, glyphsFor, parsePlacement, squareName } from "/static/board.js";
import { t } from "/static/i18n.js";

const ERASER = "";

/**
 * A FEN placement from a map square -> letter (empty runs as numbers, 12 included).
 * @param {Map<string, string>} pieces @param {number} width @param {number} height
 * @returns {string}
 */
export function placementOf(pieces, width, height) {
  const rows = [];
  for (let rank = height - 1; rank >= 0; rank--) {
    let row = "";
    let empty = 0;
    for (let file = 0; file < width; file++) {
      const letter = pieces.get(squareName(file, rank));
      if (letter) { row += (empty ? String(empty) : "") + letter; empty = 0; } else empty += 1;
    }
    rows.push(row + (empty ? String(empty) : ""));
  }
  return rows.join("/");
}

/** Interweave's reserves field: six counts, a digit each or [nn] above nine. @param {number[]} counts */
export function reservesText(counts) {
  return counts.map((c) => (c < 10 ? String(c) : `[${c}]`)).join("");
}

/** @param {string} text @returns {number[] | null} */
export function parseReserves(text) {
  const counts = [];
  const re = /\[(\d+)\]|(\d)/y;
  while (re.lastIndex < text.length) {
    const m = re.exec(text);
    if (m === null) return null;
    counts.push(parseInt(m[1] || m[2], 10));
  }
  return counts.length === 6 ? counts : null;
}

export class BoardEditor {
  /** @param {HTMLElement} root @param {VariantInfo[]} variants */
  constructor(root, variants) {
    this.root = root;
    const name = root.dataset.variant;
    this.v = /** @type {VariantInfo} */ (variants.find((v) => v.name === name));
    this.tool = ERASER;
    this.turn = "w";
    /** @type {string[]} the FEN's fields after the side to move */
    this.extra = [];
    this.pieces = new Map();
    this.checked = 0;  // the latest check asked; an older answer is ignored
    /** @type {HTMLInputElement} */
    this.fenBox = /** @type {any} */ (root.querySelector("#fen"));
    const holder = /** @type {HTMLElement} */ (root.querySelector("#board"));
    this.board = new BoardView(holder, { width: this.v.width, height: this.v.height, pieceNames: this.v.piece_names,
      royal: this.v.royal, glyphs: glyphsFor(this.v.name) });
    this.board.svg.addEventListener("click", (e) => this.put(e, this.tool));
    this.board.svg.addEventListener("contextmenu", (e) => { e.preventDefault(); this.put(e, ERASER); });
    this.palette();
    const nameEl = document.getElementById("game-name");
    if (nameEl) nameEl.textContent = `· ${this.v.title}`;
    root.querySelector("#variant")?.addEventListener("change", (e) => {
      location.href = `/editor/${/** @type {HTMLSelectElement} */ (e.target).value}`;
    });
    root.querySelector("#turn")?.addEventListener("change", (e) => {
      this.turn = /** @type {HTMLSelectElement} */ (e.target).value; this.changed();
    });
    root.querySelector("#ep")?.addEventListener("change", () => this.changed());
    for (const input of root.querySelectorAll(".reserve")) input.addEventListener("change", () => this.changed());
    root.querySelector("#start")?.addEventListener("click", () => this.loadFen(this.v.starting_fen));
    root.querySelector("#clear")?.addEventListener("click", () => { this.pieces = new Map(); this.changed(); });
    root.querySelector("#flip")?.addEventListener("click", () => this.board.flip());
    // the FEN box, the other way: a FEN typed or pasted sets the board once the library reads it
    this.fenBox.addEventListener("change", () => this.loadFen(this.fenBox.value.trim(), true));
    this.loadFen(this.fenBox.value.trim() || this.v.starting_fen);
  }

  palette() {
    const box = /** @type {HTMLElement} */ (this.root.querySelector("#palette"));
    const letters = Object.keys(this.v.piece_names);
    /** @param {string} tool @param {string} label */
    const add = (tool, label) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "tool";
      b.dataset.tool = tool;
      b.title = label;
      b.setAttribute("aria-label", label);
      b.setAttribute("aria-pressed", String(tool === this.tool));
      if (tool) {
        const view = new BoardView(b, { width: 1, height: 1, pieceNames: this.v.piece_names, royal: this.v.royal,
          glyphs: glyphsFor(this.v.name), coordinates: false });
        view.setPosition(new Map([["a1", tool]]));
      } else b.textContent = "⌫";
      b.addEventListener("click", () => {
        this.tool = tool;
        for (const other of box.querySelectorAll(".tool")) other.setAttribute("aria-pressed", String(other === b));
      });
      box.appendChild(b);
    };
    for (const white of [true, false]) {
      for (const letter of letters) {
        const side = white ? t("White") : t("Black");
        add(white ? letter.toUpperCase() : letter.toLowerCase(), `${side} ${this.v.piece_names[letter]}`);
      }
    }
    add(ERASER, t("Eraser: empty a square"));
  }

  /** The square under a click, in the board's current orientation. @param {MouseEvent} e @returns {string | null} */
  square(e) {
    const ctm = this.board.svg.getScreenCTM();
    if (!ctm) return null;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
    const x = Math.floor(p.x / 100), y = Math.floor(p.y / 100);
    if (x < 0 || y < 0 || x >= this.v.width || y >= this.v.height) return null;
    const file = this.board.flipped ? this.v.width - 1 - x : x;
    const rank = this.board.flipped ? y : this.v.height - 1 - y;
    return squareName(file, rank);
  }

  /** @param {MouseEvent} e @param {string} tool */
  put(e, tool) {
    const sq = this.square(e);
    if (!sq) return;
    // the same piece again empties the square: a tap places, a second tap takes back
    if (!tool || this.pieces.get(sq) === tool) this.pieces.delete(sq); else this.pieces.set(sq, tool);
    this.changed();
  }

  /** The extra fields from the controls (Interweave), else as the last FEN had them. @returns {string[]} */
  extraFields() {
    const ep = /** @type {HTMLInputElement | null} */ (this.root.querySelector("#ep"));
    if (!ep) return this.extra;
    const counts = [...this.root.querySelectorAll(".reserve")].map((i) => Math.max(0, parseInt(/** @type {HTMLInputElement} */ (i).value, 10) || 0));
    return [ep.value.trim() || "-", reservesText(counts)];
  }

  fen() {
    return [placementOf(this.pieces, this.v.width, this.v.height), this.turn, ...this.extraFields()].join(" ");
  }

  /** The board, side and extra state changed by hand: the FEN follows, and the library judges it. */
  changed() {
    this.board.setPosition(new Map(this.pieces));
    this.fenBox.value = this.fen();
    this.check(this.fenBox.value, false);
  }

  /** @param {string} fen @param {boolean} [typed] from the FEN box (the board changes only if valid) */
  loadFen(fen, typed = false) {
    this.check(fen, true, typed);
  }

  /** @param {string} fen @param {boolean} apply set the board from the library's reading @param {boolean} [typed] */
  async check(fen, apply, typed = false) {
    const ticket = ++this.checked;
    const err = /** @type {HTMLElement} */ (this.root.querySelector("#error"));
    let answer;
    try {
      answer = await postJSON("/api/editor/check", { variant: this.v.name, fen });
    } catch (e) {
      if (ticket !== this.checked) return;
      err.textContent = t("This position cannot be used: {reason}", { reason: e.message });
      this.root.dataset.valid = "0";
      this.links(null);
      if (typed) this.fenBox.value = fen;
      return;
    }
    if (ticket !== this.checked) return;
    err.textContent = "";
    this.root.dataset.valid = "1";
    if (apply) this.apply(answer.fen);
    this.links(answer.fen);
  }

  /** The controls from a FEN the library accepted. @param {string} fen */
  apply(fen) {
    const fields = fen.split(" ");
    this.pieces = parsePlacement(fen, this.v.width, this.v.height);
    this.turn = fields[1] === "b" ? "b" : "w";
    this.extra = fields.slice(2);
    /** @type {HTMLSelectElement} */ (this.root.querySelector("#turn")).value = this.turn;
    const ep = /** @type {HTMLInputElement | null} */ (this.root.querySelector("#ep"));
    if (ep && this.extra.length === 2) {
      ep.value = this.extra[0];
      const counts = parseReserves(this.extra[1]) || [0, 0, 0, 0, 0, 0];
      const inputs = [...this.root.querySelectorAll(".reserve")];
      inputs.forEach((input, i) => { /** @type {HTMLInputElement} */ (input).value = String(counts[i] || 0); });
    }
    this.board.setPosition(new Map(this.pieces));
    this.fenBox.value = fen;
    this.root.dataset.fen = fen;
  }

  /** The links out and the shareable address, for a valid FEN (null: none). @param {string | null} fen */
  links(fen) {
    const share = /** @type {HTMLInputElement} */ (this.root.querySelector("#share"));
    const current = fen || this.fenBox.value;
    const here = `/editor/${this.v.name}?${new URLSearchParams({ fen: current })}`;
    history.replaceState(null, "", here);
    share.value = `${location.origin}${here}`;
    this.root.dataset.fen = current;
    const q = new URLSearchParams({ variant: this.v.name, fen: current });
    /** @type {[string, string][]} */
    const targets = [["#analyse", `/analysis?${q}`], ["#play-computer", `/new?${q}&opponent=computer`],
      ["#challenge", `/new?${q}&opponent=friend`]];
    for (const [id, href] of targets) {
      const a = /** @type {HTMLAnchorElement} */ (this.root.querySelector(id));
      if (fen) { a.href = href; a.removeAttribute("aria-disabled"); a.classList.remove("disabled"); }
      else { a.removeAttribute("href"); a.setAttribute("aria-disabled", "true"); a.classList.add("disabled"); }
    }
  }
}
