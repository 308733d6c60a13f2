// @ts-check
// exochess board: an SVG board for any size (8x8, 12x12...), with click-click and drag input,
// legal destinations, highlights, and step-by-step input of special moves and chains.
// Squares are named like "e4"; pieces are FEN letters (upper case White, lower case Black).

import { t, tPhrase } from "/static/i18n.js";

const SVGNS = "http://www.w3.org/2000/svg";

/**
 * The squares a board marks: the last move (or the one being entered) and what it captured.
 * @typedef {{from: string | null, to: string | null, victims: string[]}} Highlight
 */

/**
 * The options of a board (BoardView's constructor).
 * @typedef {object} BoardOptions
 * @property {number} width
 * @property {number} height
 * @property {{[letter: string]: string}} [pieceNames]
 * @property {string | null} [royal]
 * @property {{[letter: string]: string} | null} [glyphs]
 * @property {(text: string) => void} [onMove]
 * @property {(prefix: string[]) => Promise<LegalNode[]>} [fetchNext]
 * @property {(message: string) => void} [onError]
 * @property {(premove: Premove | null) => void} [onPremove]
 * @property {boolean} [coordinates]
 */
/** @typedef {{from: string, to: string}} Premove a move to try when its turn comes */
/**
 * A chain being entered: the actions that may follow, the pieces as they stand after the
 * actions entered so far, where the moving piece is, the move text if it may end here.
 * @typedef {{nodes: LegalNode[], overlay: Map<string, string>, at: string, complete: string | null, done: string[]}} Chain
 */

/** @param {number} file @param {number} rank */
export function squareName(file, rank) {
  return String.fromCharCode(97 + file) + String(rank + 1);
}

/** @param {string} name @returns {[number, number]} */
export function parseSquare(name) {
  return [name.charCodeAt(0) - 97, parseInt(name.slice(1), 10) - 1];
}

// FEN placement -> Map(square -> letter). Multi-digit empty runs are read ("12").
/** @param {string} fen @param {number} width @param {number} height */
export function parsePlacement(fen, width, height) {
  /** @type {Map<string, string>} */
  const pieces = new Map();
  const ranks = fen.split(" ")[0].split("/");
  ranks.forEach((/** @type {string} */ row, /** @type {number} */ i) => {
    const rank = height - 1 - i;
    let file = 0;
    const re = /(\d+)|([A-Za-z])/g;
    let m;
    while ((m = re.exec(row)) !== null) {
      if (m[1]) file += parseInt(m[1], 10);
      else { pieces.set(squareName(file, rank), m[2]); file += 1; }
    }
  });
  return pieces;
}

/** @param {string} fen */
export function sideToMove(fen) {
  return fen.split(" ")[1] === "b" ? "black" : "white";
}

/**
 * An SVG element, with its attributes, appended to `parent` when one is given.
 * @param {string} name
 * @param {{[attribute: string]: string | number}} [attrs]
 * @param {Element | null} [parent]
 * @returns {SVGElement}
 */
function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVGNS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (parent) parent.appendChild(node);
  return node;
}

// Words for one action, used when the player must choose between moves with the same squares.
/** @param {ActionView} action @param {{[letter: string]: string}} [pieceNames] */
export function describeAction(action, pieceNames) {
  const parts = [];
  const list = (/** @type {string[]} */ squares) => squares.join(", ");
  switch (action.kind) {
    case "~": parts.push(t("Swap with the piece on {square}", { square: action.to })); break;
    case "*": parts.push(t("Mutual destruction with {square} (both removed)", { square: action.to })); break;
    case "@": parts.push(t("Shoot {squares}", { squares: list(action.victims) })); break;
    case "x": parts.push(action.victims.length === 1 && action.victims[0] === action.to
      ? t("Capture on {square}", { square: action.to })
      : t("Move to {square}, capturing {squares}", { square: action.to, squares: list(action.victims) })); break;
    default: parts.push(t("Move to {square}", { square: action.to }));
  }
  if (action.promotion) {
    const name = (pieceNames && pieceNames[action.promotion]) || action.promotion;
    parts.push(t("promote to {piece}", { piece: name }));
  }
  return parts.join(", ");
}

// A modal chooser: resolves to the chosen option's value, or null when cancelled.
/**
 * @param {string} title
 * @param {{value: string, label: string}[]} options
 * @returns {Promise<string | null>}
 */
export function choose(title, options) {
  return new Promise((resolve) => {
    const back = document.createElement("div");
    back.className = "chooser-back";
    const box = document.createElement("div");
    box.className = "chooser";
    box.setAttribute("role", "dialog");
    const h = document.createElement("h3");
    h.textContent = title;
    box.appendChild(h);
    const finish = (/** @type {string | null} */ value) => { back.remove(); document.removeEventListener("keydown", onKey, true); resolve(value); };
    const onKey = (/** @type {KeyboardEvent} */ e) => { if (e.key === "Escape") { e.stopPropagation(); finish(null); } };
    for (const opt of options) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "choice";
      b.dataset.move = opt.value;
      b.innerHTML = `<span class="choice-label"></span> <code></code>`;
      /** @type {HTMLElement} */ (b.querySelector(".choice-label")).textContent = opt.label;
      /** @type {HTMLElement} */ (b.querySelector("code")).textContent = opt.value;
      b.addEventListener("click", () => finish(opt.value));
      box.appendChild(b);
    }
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "choice cancel";
    cancel.textContent = t("Cancel");
    cancel.addEventListener("click", () => finish(null));
    box.appendChild(cancel);
    back.appendChild(box);
    back.addEventListener("click", (e) => { if (e.target === back) finish(null); });
    document.addEventListener("keydown", onKey, true);
    document.body.appendChild(back);
    /** @type {HTMLButtonElement} */ (box.querySelector("button")).focus();
  });
}

// Piece drawings of a game (the rules diagrams' glyphs), when the server has them.
/** @param {string} variantName @returns {{[letter: string]: string} | null} */
export function glyphsFor(variantName) {
  return (window.EXOCHESS_GLYPHS || {})[variantName] || null;
}

// Legal moves come as a tree of actions (see docs/web.md): each node is one action with its
// `from`, `to`, `kind`, `victims`, `promotion`, `changes` (square -> letter after it), `end`
// (a move may end here) and `next` (the actions that may follow; null when the server left
// them out of a large tree: they are then asked for with `fetchNext(actionsSoFar)`).
export class BoardView {
  // options: {width, height, pieceNames, royal, onMove(text), fetchNext(prefix) -> Promise<nodes>,
  //           onError(message), onPremove({from, to} or null), coordinates}
  // Rule states (see setAnnotations) are drawn over the squares and pieces; picking a piece that
  // cannot move, or one that a rule holds, says why in words under the board.
  /** @param {HTMLElement} container @param {BoardOptions} options */
  constructor(container, options) {
    this.container = container;
    this.width = options.width;
    this.height = options.height;
    this.pieceNames = options.pieceNames || {};
    this.royal = options.royal || "K";
    this.onMove = options.onMove || null;
    this.fetchNext = options.fetchNext || null;
    this.onError = options.onError || null;
    this.onPremove = options.onPremove || null;
    this.coordinates = options.coordinates !== false;
    this.glyphs = options.glyphs || null;
    /** @type {any} */
    this.notes = null;        // the position's annotations (docs/web.md), null when none are shown
    this.showNotes = true;    // the overlays' switch (the explanations under the board stay)
    /** @type {string | null} */
    this.why = null;          // the square whose explanation is shown
    this.flipped = false;
    /** @type {boolean | undefined} how the squares were last drawn (render) */
    this.squaresFlipped = undefined;
    this.pieces = new Map();
    /** @type {LegalNode[]} */
    this.legal = [];
    /** @type {Highlight} */
    this.highlight = { from: null, to: null, victims: [] };
    /** @type {string | null} */
    this.sel = null;          // selected square
    /** @type {Chain | null} */
    this.chain = null;        // a chain being entered
    /** @type {string | null} */
    this.premoveSide = null;  // "white" or "black": whose pieces may be premoved now (see setPremoveSide)
    /** @type {Premove | null} */
    this.premove = null;      // {from, to}: the move to try when that side's turn comes
    this.epoch = 0;           // bumped by every new position, so a late fetch is ignored
    /** @type {{from: string, startX: number, startY: number, moved: boolean, reselect: boolean, node: Element | null} | null} */
    this.drag = null;
    this.svg = /** @type {SVGSVGElement} */ (el("svg", {
      viewBox: `0 0 ${this.width * 100} ${this.height * 100}`,
      class: "board",
      role: "img",
      "aria-label": t("{width}×{height} board", { width: this.width, height: this.height }),
    }));
    container.appendChild(this.svg);
    this.layers = {
      squares: el("g", {}, this.svg), gaze: el("g", { class: "note-layer gaze-layer" }, this.svg),
      marks: el("g", {}, this.svg), rings: el("g", { class: "note-layer" }, this.svg),
      pieces: el("g", {}, this.svg), badges: el("g", { class: "note-layer" }, this.svg),
      arrows: el("g", { class: "arrows" }, this.svg),
      coords: el("g", {}, this.svg), dots: el("g", {}, this.svg), drag: el("g", {}, this.svg),
    };
    // functions called after every render (arrows, keyboard focus): see motion.js, keyboard.js
    /** @type {((board: BoardView) => void)[]} */
    this.renderHooks = [];
    this.whyBox = document.createElement("p");
    this.whyBox.className = "board-why";
    this.whyBox.setAttribute("aria-live", "polite");
    this.whyBox.hidden = true;
    container.appendChild(this.whyBox);
    this.svg.addEventListener("pointerdown", (e) => this._down(e));
    this.svg.addEventListener("pointermove", (e) => this._moveDrag(e));
    this.svg.addEventListener("pointerup", (e) => this._up(e));
    this.svg.addEventListener("pointercancel", () => this._endDrag());
    // a right click takes a premove back, as on lichess
    this.svg.addEventListener("contextmenu", (e) => {
      if (this.premove || (this._premoving() && this.sel)) { e.preventDefault(); this.sel = null; this.clearPremove(); }
    });
    this.render();
  }

  /** @param {Map<string, string>} pieces */
  setPosition(pieces) { this.pieces = pieces; this.chain = null; this.sel = null; this.epoch++; this._explain(null); this.render(); this._chainBar(); }
  /** @param {string} fen */
  setFen(fen) { this.setPosition(parsePlacement(fen, this.width, this.height)); }
  // The legal-move tree's first actions (an empty list when the player may not move).
  /** @param {LegalNode[] | null} nodes */
  setLegal(nodes) { this.legal = nodes || []; this.chain = null; this.sel = null; this.epoch++; this.render(); this._chainBar(); }
  /** @param {Highlight | null} h */
  setHighlight(h) { this.highlight = h || { from: null, to: null, victims: [] }; this.render(); }
  flip() { this.flipped = !this.flipped; this.render(); }
  // The rule states of the position shown (null: none, e.g. while replaying an earlier move).
  /** @param {any} notes */
  setAnnotations(notes) { this.notes = notes || null; this._explain(null); this.render(); }
  /** @param {boolean} on */
  setShowNotes(on) { this.showNotes = Boolean(on); this.svg.classList.toggle("notes-off", !this.showNotes); }
  cancelInput() {
    this.chain = null;
    this.sel = null;
    this._chainBar();
    if (this.premove) this.clearPremove(); else this.render();
  }

  // Premoves, as on lichess: while the other side is to move, `color`'s player may pick one of
  // its pieces and a square; the move is tried as soon as its turn comes (playPremove).  The
  // server lists the legal moves of the side to move only, so no destinations are shown and any
  // square is taken: whether the move is legal is known when the turn comes.  null: no premoves
  // now (a premove already made is kept until played or taken back).
  /** @param {string | null} color */
  setPremoveSide(color) {
    const side = color || null;
    if (side === this.premoveSide) return;
    if (this._premoving()) this.sel = null;
    this.premoveSide = side;
    this.render();
  }

  clearPremove() {
    if (!this.premove) return;
    this.premove = null;
    this.render();
    this._premoveChanged();
  }

  // Try the premove on the legal moves just set (the player's turn has come): a whole move is
  // sent at once; a first action that the move must go on from (a chain), or squares that several
  // moves share, is entered as if clicked, for the player to finish; a move that is not legal
  // now is dropped.  Returns whether the premove was legal.
  playPremove() {
    const premove = this.premove;
    if (!premove) return false;
    this.premove = null;
    this._premoveChanged();
    const cands = this.legal.filter((a) => a.from === premove.from && a.to === premove.to);
    if (!cands.length) { this.render(); return false; }
    if (cands.length === 1 && cands[0].end) { this._submit(cands[0].text); return true; }
    this.sel = premove.from;
    this._choose(premove.to);
    return true;
  }

  // Premove input is on: a side may premove, it has no legal moves listed (not its turn), and no
  // chain is being entered.
  _premoving() { return this.premoveSide !== null && !this.chain && this.legal.length === 0; }

  /** @param {string} square */
  _ownPiece(square) {
    const letter = this.pieces.get(square);
    return Boolean(letter) && (letter === letter.toUpperCase()) === (this.premoveSide === "white");
  }

  /** @param {string} from @param {string} to */
  _setPremove(from, to) {
    this.premove = { from, to };
    this.sel = null;
    this.render();
    this._premoveChanged();
  }

  _premoveChanged() { if (this.onPremove) this.onPremove(this.premove); }

  // A click or tap on `sq` while premoving: any click takes a premove back (and may pick a piece
  // at once); a piece of one's own is picked; another square, with a piece picked, is the premove.
  /** @param {string} sq */
  _premoveClick(sq) {
    if (this.premove) { this.clearPremove(); if (!this._ownPiece(sq)) return false; }
    if (this._ownPiece(sq)) { this.sel = this.sel === sq ? null : sq; this.render(); return true; }
    if (this.sel) { this._setPremove(this.sel, sq); return true; }
    return false;
  }

  /** @param {string} square @returns {[number, number]} */
  _xy(square) {
    const [f, r] = parseSquare(square);
    const x = this.flipped ? this.width - 1 - f : f;
    const y = this.flipped ? r : this.height - 1 - r;
    return [x * 100, y * 100];
  }

  /** @param {{clientX: number, clientY: number}} evt */
  _squareAt(evt) {
    const pt = this.svg.createSVGPoint();
    pt.x = evt.clientX; pt.y = evt.clientY;
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return null;
    const p = pt.matrixTransform(ctm.inverse());
    let x = Math.floor(p.x / 100), y = Math.floor(p.y / 100);
    if (x < 0 || y < 0 || x >= this.width || y >= this.height) return null;
    const f = this.flipped ? this.width - 1 - x : x;
    const r = this.flipped ? y : this.height - 1 - y;
    return squareName(f, r);
  }

  _shownPieces() { return this.chain ? this.chain.overlay : this.pieces; }

  // The actions that may be played next (tree nodes) for the current input state.
  /** @returns {LegalNode[]} */
  _candidates() { return this.chain ? this.chain.nodes : this.legal; }

  _destinations() {
    if (!this.sel) return new Map();
    const out = new Map();
    for (const a of this._candidates()) {
      if (a.from !== this.sel) continue;
      const capture = a.victims.length > 0 || a.kind === "~";
      out.set(a.to, (out.get(a.to) || false) || capture);
    }
    return out;
  }

  /** @param {string} square */
  _movable(square) {
    if (this.chain) return this.chain.at === square;
    if (this._premoving()) return this._ownPiece(square);
    return this._candidates().some((a) => a.from === square);
  }

  render() {
    const { squares, marks, pieces, dots, coords, arrows } = this.layers;
    for (const g of [marks, pieces, dots, coords, arrows]) g.replaceChildren();
    this._drawNotes();
    // the squares are kept from one render to the next (a focused square keeps the focus)
    if (this.squaresFlipped !== this.flipped) {
      this.squaresFlipped = this.flipped;
      squares.replaceChildren();
      for (let f = 0; f < this.width; f++) {
        for (let r = 0; r < this.height; r++) {
          const name = squareName(f, r);
          const [x, y] = this._xy(name);
          el("rect", { x, y, width: 100, height: 100, class: (f + r) % 2 === 0 ? "sq dark" : "sq light",
            "data-square": name }, squares);
        }
      }
    }
    if (this.coordinates) {
      for (let f = 0; f < this.width; f++) {
        const [x, y] = this._xy(squareName(f, this.flipped ? this.height - 1 : 0));
        const t = el("text", { x: x + 94, y: y + 94, class: "coord", "text-anchor": "end" }, coords);
        t.textContent = String.fromCharCode(97 + f);
      }
      for (let r = 0; r < this.height; r++) {
        const [x, y] = this._xy(squareName(this.flipped ? this.width - 1 : 0, r));
        const t = el("text", { x: x + 5, y: y + 22, class: "coord" }, coords);
        t.textContent = String(r + 1);
      }
    }
    const h = this.highlight;
    for (const sq of [h.from, h.to]) {
      if (!sq) continue;
      const [x, y] = this._xy(sq);
      el("rect", { x, y, width: 100, height: 100, class: "last" }, marks);
    }
    for (const sq of h.victims || []) {
      const [x, y] = this._xy(sq);
      el("rect", { x, y, width: 100, height: 100, class: "victim", "data-victim": sq }, marks);
    }
    if (this.premove) {
      for (const sq of [this.premove.from, this.premove.to]) {
        const [x, y] = this._xy(sq);
        el("rect", { x, y, width: 100, height: 100, class: "premove", "data-premove": sq }, marks);
      }
    }
    if (this.sel) {
      const [x, y] = this._xy(this.sel);
      el("rect", { x, y, width: 100, height: 100, class: "selected" }, marks);
    }
    for (const [sq, letter] of this._shownPieces()) {
      if (this.drag && this.drag.from === sq && this.drag.moved) continue;
      this._piece(pieces, sq, letter);
    }
    for (const [sq, capture] of this._destinations()) {
      const [x, y] = this._xy(sq);
      if (capture || this._shownPieces().has(sq)) {
        el("circle", { cx: x + 50, cy: y + 50, r: 44, class: "dest capture", "data-dest": sq }, dots);
      } else {
        el("circle", { cx: x + 50, cy: y + 50, r: 15, class: "dest", "data-dest": sq }, dots);
      }
    }
    for (const hook of this.renderHooks) hook(this);
  }

  // The square's top-left corner in board units (100 per square), as drawn now.
  /** @param {string} square */
  squareXY(square) { return this._xy(square); }

  // The square as a click would take it (select, move there, fire in place, deselect): the
  // keyboard's Enter and Space.
  /** @param {string} sq */
  activate(sq) {
    if (this._premoving()) { this._premoveClick(sq); return; }
    const dests = this._destinations();
    if (this.sel && dests.has(sq)) { this._choose(sq); return; }
    if (this._movable(sq)) {
      if (!this.chain) this.sel = this.sel === sq ? null : sq;
      this.render();
      return;
    }
    if (!this.chain) { this.sel = null; this.render(); }
  }

  /**
   * A piece's glyph on `sq` (or at the point `at`, while dragged), drawn into `parent`.
   * @param {Element} parent
   * @param {string} sq
   * @param {string} letter
   * @param {number[] | null} [at]
   * @returns {SVGElement}
   */
  _piece(parent, sq, letter, at = null) {
    const [x, y] = at || this._xy(sq);
    const white = letter === letter.toUpperCase();
    const type = letter.toUpperCase();
    const g = el("g", { class: `piece ${white ? "white" : "black"}`, "data-piece": letter,
      "data-square": sq, transform: `translate(${x},${y})` }, parent);
    const title = el("title", {}, g);
    // the name, and on the board (not while dragging) what holds the piece
    const held = at ? [] : this._marksOn(sq).map(markSentence);
    const piece = this.pieceNames[type] || type;
    const name = white ? t("White {piece}", { piece }) : t("Black {piece}", { piece });
    title.textContent = [name, ...held].join("\n");
    if (this.glyphs && this.glyphs[letter]) {
      const inner = el("g", { class: "glyph-art" }, g);
      inner.innerHTML = this.glyphs[letter];
      return g;
    }
    el("circle", { cx: 50, cy: 50, r: 38, class: "disc" }, g);
    if (type === this.royal) el("circle", { cx: 50, cy: 50, r: 31, class: "ring" }, g);
    const letterText = el("text", { x: 50, y: 51, class: "glyph", "text-anchor": "middle",
      "dominant-baseline": "central" }, g);
    letterText.textContent = type;
    return g;
  }

  // --- input --------------------------------------------------------------------------------

  /** @param {PointerEvent} e */
  _down(e) {
    if (e.button !== undefined && e.button !== 0) return;
    const sq = this._squareAt(e);
    if (!sq) return;
    if (this._premoving()) {
      const reselect = this.sel === sq;
      if (this.premove || !this._ownPiece(sq)) { if (this._premoveClick(sq)) e.preventDefault(); return; }
      // one's own piece: picked, and it may be dragged to the premove's square
      this.sel = sq;
      this._startDrag(e, sq, reselect);
      return;
    }
    const dests = this._destinations();
    if (this.sel && dests.has(sq) && sq !== this.sel) {
      e.preventDefault();
      this._explain(null);
      this._choose(sq);
      return;
    }
    // a picked piece says what holds it (a petrified Jumper may still leap) or why it cannot move
    this._explain(this._shownPieces().has(sq) ? sq : null);
    if (this._movable(sq)) {
      const reselect = this.sel === sq;
      if (!this.chain) this.sel = sq;
      this._startDrag(e, sq, reselect);
      return;
    }
    if (!this.chain) { this.sel = null; this.render(); }
  }

  // The pointer went down on the piece on `sq` (now selected): follow it as a possible drag.
  // `reselect`: the piece was selected already (a click without a drag then deselects it).
  /** @param {PointerEvent} e @param {string} sq @param {boolean} reselect */
  _startDrag(e, sq, reselect) {
    e.preventDefault();
    this.drag = { from: sq, startX: e.clientX, startY: e.clientY, moved: false, reselect, node: null };
    this.svg.setPointerCapture && this.svg.setPointerCapture(e.pointerId);
    this.render();
  }

  // --- rule states ------------------------------------------------------------------------

  /** @param {string} square @returns {any[]} the position's marks on it */
  _marksOn(square) {
    if (!this.notes || this.chain) return [];
    return this.notes.marks.filter((/** @type {any} */ m) => m.square === square);
  }

  // Why the piece on `square` cannot move, or what holds it; null when nothing needs saying.
  /** @param {string} square */
  _reasonFor(square) {
    if (!this.notes || this.chain) return null;
    const stuck = this.notes.stuck && this.notes.stuck[square];
    if (stuck) return sentence(tPhrase((this.notes.stuck_t && this.notes.stuck_t[square]) || stuck));
    const held = this._marksOn(square).filter((m) => m.kind !== "must-capture");
    if (held.length) return held.map(markSentence).join(" ");
    return null;
  }

  /** @param {string | null} square */
  _explain(square) {
    const text = square ? this._reasonFor(square) : null;
    this.why = text ? square : null;
    this.whyBox.textContent = text || "";
    this.whyBox.hidden = !text;
    if (text) this.whyBox.dataset.square = /** @type {string} */ (square); else delete this.whyBox.dataset.square;
  }

  // Gaze cells (one light tint per side), rings on the pieces that must capture, badges on the
  // frozen, petrified and shielded ones.  The layers carry the class note-layer: the switch
  // (setShowNotes) hides them with one class on the board.
  _drawNotes() {
    const { gaze, rings, badges } = this.layers;
    for (const g of [gaze, rings, badges]) g.replaceChildren();
    if (!this.notes || this.chain) return;
    const tinted = new Set();
    for (const z of this.notes.gazes) {
      for (const cell of z.cells) {
        const key = `${z.color}:${cell}`;
        if (tinted.has(key)) continue;
        tinted.add(key);
        const [x, y] = this._xy(cell);
        el("rect", { x, y, width: 100, height: 100, class: `gaze gaze-${z.color}`, "data-gaze": cell }, gaze);
      }
    }
    const seen = new Map();
    for (const m of this.notes.marks) {
      const [x, y] = this._xy(m.square);
      if (m.kind === "must-capture") {
        el("circle", { cx: x + 50, cy: y + 50, r: 46, class: "must-capture", "data-mark": m.kind,
          "data-square": m.square }, rings);
        continue;
      }
      // badges of one piece side by side along its top edge
      const n = seen.get(m.square) || 0;
      seen.set(m.square, n + 1);
      const g = el("g", { class: `badge ${m.kind}`, "data-mark": m.kind, "data-square": m.square,
        transform: `translate(${x + 80 - n * 34},${y + 20})` }, badges);
      el("title", {}, g).textContent = markSentence(m);
      el("circle", { r: 17, class: "badge-disc" }, g);
      el("path", { d: BADGE_PATHS[m.kind] || "", class: "badge-art" }, g);
    }
    if (this.why) {
      const [x, y] = this._xy(this.why);
      el("rect", { x: x + 3, y: y + 3, width: 94, height: 94, class: "why-square" }, rings);
    }
  }

  /** @param {PointerEvent} e */
  _moveDrag(e) {
    const d = this.drag;
    if (!d) return;
    if (!d.moved && Math.hypot(e.clientX - d.startX, e.clientY - d.startY) < 6) return;
    const pt = this.svg.createSVGPoint();
    pt.x = e.clientX; pt.y = e.clientY;
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return;  // the board is not rendered (as _squareAt)
    const p = pt.matrixTransform(ctm.inverse());
    if (!d.moved) { d.moved = true; this.render(); }
    this.layers.drag.replaceChildren();
    const letter = this._shownPieces().get(d.from);
    if (letter) this._piece(this.layers.drag, d.from, letter, [p.x - 50, p.y - 50]).classList.add("dragging");
  }

  _endDrag() {
    this.drag = null;
    this.layers.drag.replaceChildren();
  }

  /** @param {PointerEvent} e */
  _up(e) {
    const d = this.drag;
    if (!d) return;
    this._endDrag();
    const sq = this._squareAt(e);
    if (this._premoving()) {
      if (d.moved && sq && sq !== d.from) { this._setPremove(d.from, sq); return; }
      if (!d.moved && d.reselect && sq === d.from) this.sel = null;
      this.render();
      return;
    }
    if (d.moved) {
      if (sq && sq !== d.from && this._destinations().has(sq)) { this._choose(sq); return; }
      if (sq && sq === d.from && this._destinations().has(sq)) { this._choose(sq); return; }
      this.render();
      return;
    }
    // a plain click on the selected piece: a move to its own square (rifle), or deselect
    if (d.reselect && sq === d.from) {
      if (this._destinations().has(sq)) { this._choose(sq); return; }
      if (!this.chain) this.sel = null;
    }
    this.render();
  }

  /** @param {string} dest */
  async _choose(dest) {
    const from = this.sel;
    const cands = this._candidates().filter((a) => a.from === from && a.to === dest);
    if (!cands.length) return;
    let action = cands[0];
    if (cands.length > 1) {
      const options = cands.map((a) => ({ value: a.text, label: describeAction(a, this.pieceNames) }));
      const chosen = await choose(t("Which move from {from} to {to}?", { from: /** @type {string} */ (from), to: dest }), options);
      if (chosen === null) { this.render(); return; }
      action = /** @type {LegalNode} */ (cands.find((a) => a.text === chosen));
    }
    const done = [...(this.chain ? this.chain.done : []), action.text];
    let next = /** @type {LegalNode[] | null} */ (action.next);
    if (next === null) {
      // a large tree was cut here: ask the server for what may follow these actions
      const epoch = this.epoch;
      try {
        next = this.fetchNext ? await this.fetchNext(done) : [];
      } catch (e) {
        if (epoch === this.epoch) { this.cancelInput(); if (this.onError) this.onError(e.message); }
        return;
      }
      if (epoch !== this.epoch) return;  // the position changed meanwhile
    }
    if (!next.length) { this._submit(done.join(",")); return; }
    const overlay = new Map(this._shownPieces());
    for (const [sq, letter] of action.changes || []) {
      if (letter) overlay.set(sq, letter); else overlay.delete(sq);
    }
    this.chain = { nodes: next, overlay, at: action.to, complete: action.end ? done.join(",") : null, done };
    this.sel = action.to;
    this.highlight = { from, to: action.to, victims: [...(this.highlight.victims || []), ...action.victims] };
    this.render();
    this._chainBar();
  }

  /** @param {string} text */
  _submit(text) {
    this.chain = null;
    this.sel = null;
    this._chainBar();
    this.render();
    if (this.onMove) this.onMove(text);
  }

  // The bar shown while a chain is being entered: what is done so far, end turn, cancel.
  _chainBar() {
    let bar = this.container.querySelector(".chain-bar");
    if (!this.chain) { if (bar) bar.remove(); return; }
    if (!bar) {
      bar = document.createElement("div");
      bar.className = "chain-bar";
      this.container.appendChild(bar);
    }
    bar.replaceChildren();
    const info = document.createElement("span");
    info.textContent = t("Chain so far: {moves} — continue capturing from {square}", { moves: this.chain.done.join(", "), square: this.chain.at });
    bar.appendChild(info);
    if (this.chain.complete) {
      const end = document.createElement("button");
      end.type = "button"; end.textContent = t("End turn here"); end.className = "end-turn";
      const text = this.chain.complete;
      end.addEventListener("click", () => this._submit(text));
      bar.appendChild(end);
    }
    const cancel = document.createElement("button");
    cancel.type = "button"; cancel.textContent = t("Cancel"); cancel.className = "cancel-chain";
    cancel.addEventListener("click", () => this.cancelInput());
    bar.appendChild(cancel);
  }
}

// Why a mark holds its piece, in the page's language.
/** @param {{reason: string, reason_t?: string}} m */
function markSentence(m) { return sentence(tPhrase(m.reason_t || m.reason)); }

// A reason from the library ("the Queen on d4 is immobilized ...") as a sentence.
/** @param {string} text */
export function sentence(text) {
  const t = String(text || "").trim();
  if (!t) return "";
  return t.charAt(0).toUpperCase() + t.slice(1) + (/[.!?)]$/.test(t) ? "" : ".");
}

// Badge drawings (centred on 0,0, radius 15): a snowflake for frozen, a cracked stone for
// petrified, a shield for shielded.
/** @type {{[kind: string]: string}} */
export const BADGE_PATHS = {
  frozen: "M0,-10V10M-8.7,-5L8.7,5M-8.7,5L8.7,-5M-3,-8L0,-5L3,-8M-3,8L0,5L3,8",
  petrified: "M-9,6L-6,-5L1,-9L9,-3L8,7L-2,9ZM-3,-7L0,0L-5,5M0,0L7,2",
  shielded: "M-8,-9H8V0C8,5 4,8 0,10C-4,8 -8,5 -8,0Z",
};

// Engine analysis in words, from White's point of view (the engine scores for the side to move).
/** @param {any} a an analysis as /api/analyse answers it */
export function describeAnalysis(a) {
  let score;
  if (a.mate !== null && a.mate !== undefined) {
    const moves = Math.max(1, Math.ceil(Math.abs(a.mate) / 2));
    const whiteWins = (a.mate > 0) === (a.side_to_move !== "black");
    if (moves === 1) score = whiteWins ? t("White wins by force in 1 move") : t("Black wins by force in 1 move");
    else score = whiteWins ? t("White wins by force in {n} moves", { n: moves }) : t("Black wins by force in {n} moves", { n: moves });
  } else {
    const white = a.side_to_move === "black" ? -a.score_cp : a.score_cp;
    score = t("{score} (plus favours White)", { score: `${white >= 0 ? "+" : ""}${(white / 100).toFixed(2)}` });
  }
  return [t("Evaluation: {score}", { score }), t("Depth {depth}, {nodes} nodes", { depth: a.depth, nodes: a.nodes }),
    t("Best line: {moves}", { moves: a.pv.join(" ") })].join("\n");
}

// A small static board for lists and the home page.
/** @param {HTMLElement} container @param {VariantInfo} variant @param {string} fen */
export function staticBoard(container, variant, fen) {
  const view = new BoardView(container, { width: variant.width, height: variant.height,
    pieceNames: variant.piece_names, royal: variant.royal, coordinates: false,
    glyphs: glyphsFor(variant.name) });
  view.setFen(fen);
  return view;
}
