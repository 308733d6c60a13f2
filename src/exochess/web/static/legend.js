// @ts-check
// What sits beside a board: the switch for the rule marks, the key of the marks shown, the piece
// legend (glyph, name, one line of what it does: the game's own data), the captured pieces and
// the Interweave reserves.  Used by the game page and the analysis board.
import { BADGE_PATHS, glyphsFor } from "/static/board.js";
import { pieceWords } from "/static/movewords.js";

const SVGNS = "http://www.w3.org/2000/svg";
const NOTES_KEY = "exochess:rule-marks";

// Whether the rule marks are shown (remembered in this browser; on unless switched off).
/** @returns {boolean} */
export function notesShown() {
  try { return localStorage.getItem(NOTES_KEY) !== "off"; } catch { return true; }
}

/** @param {boolean} on */
function rememberNotes(on) {
  try { localStorage.setItem(NOTES_KEY, on ? "on" : "off"); } catch { /* private mode: not kept */ }
}

// A small piece drawing: the board's own glyph of `letter` (FEN case gives the colour).
/**
 * @param {VariantInfo} variant
 * @param {string} letter
 * @param {string} [className]
 * @returns {SVGSVGElement}
 */
export function pieceIcon(variant, letter, className = "piece-icon") {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", className);
  const glyphs = glyphsFor(variant.name);
  const type = letter.toUpperCase();
  const title = document.createElementNS(SVGNS, "title");
  title.textContent = pieceWords(variant, letter);
  svg.appendChild(title);
  if (glyphs && glyphs[letter]) {
    const g = document.createElementNS(SVGNS, "g");
    g.innerHTML = glyphs[letter];
    svg.appendChild(g);
  } else {
    const t = document.createElementNS(SVGNS, "text");
    t.setAttribute("x", "50"); t.setAttribute("y", "66"); t.setAttribute("text-anchor", "middle");
    t.setAttribute("class", "piece-icon-letter");
    t.textContent = type;
    svg.appendChild(t);
  }
  return svg;
}

/** @param {string} kind @returns {SVGSVGElement} */
function badgeIcon(kind) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "-16 -16 32 32");
  svg.setAttribute("class", `key-icon badge ${kind}`);
  const disc = document.createElementNS(SVGNS, "circle");
  disc.setAttribute("r", "15"); disc.setAttribute("class", "badge-disc");
  const art = document.createElementNS(SVGNS, "path");
  art.setAttribute("d", BADGE_PATHS[kind] || ""); art.setAttribute("class", "badge-art");
  svg.append(disc, art);
  return svg;
}

/** @param {string} className @returns {SVGSVGElement} */
function swatch(className) {
  const svg = document.createElementNS(SVGNS, "svg");
  svg.setAttribute("viewBox", "0 0 32 32");
  svg.setAttribute("class", `key-icon ${className}`);
  const shape = document.createElementNS(SVGNS, className === "must-capture" ? "circle" : "rect");
  if (className === "must-capture") {
    shape.setAttribute("cx", "16"); shape.setAttribute("cy", "16"); shape.setAttribute("r", "12");
  } else {
    shape.setAttribute("width", "32"); shape.setAttribute("height", "32");
  }
  shape.setAttribute("class", className);
  svg.appendChild(shape);
  return svg;
}

export class BoardExtras {
  // root: the page element holding the blocks below (found by id); board: its BoardView.
  /**
   * @param {any} root the page's element (the legend's blocks are found by id)
   * @param {VariantInfo} variant
   * @param {import("/static/board.js").BoardView} board
   */
  constructor(root, variant, board) {
    this.root = root;
    this.board = board;
    /** @type {VariantInfo} set at once by setVariant */
    this.variant = /** @type {any} */ (null);
    this.toggle = root.querySelector("#notes-toggle");
    if (this.toggle) {
      this.toggle.checked = notesShown();
      this.toggle.addEventListener("change", () => {
        rememberNotes(this.toggle.checked);
        this.board.setShowNotes(this.toggle.checked);
      });
    }
    this.board.setShowNotes(notesShown());
    this.setVariant(variant, board);
  }

  /** @param {string} id */
  $(id) { return this.root.querySelector(`#${id}`); }

  /**
   * A new game (the analysis board's menu) or a new board.
   * @param {VariantInfo} variant
   * @param {import("/static/board.js").BoardView} board
   */
  setVariant(variant, board) {
    this.board = board;
    this.board.setShowNotes(notesShown());
    if (this.variant && this.variant.name === variant.name) return;
    this.variant = variant;
    const list = this.$("legend-list");
    if (!list) return;
    list.replaceChildren();
    for (const p of variant.pieces || []) {
      const li = document.createElement("li");
      li.dataset.letter = p.letter;
      li.appendChild(pieceIcon(variant, p.letter, "legend-glyph"));
      const text = document.createElement("div");
      const name = document.createElement("strong");
      name.textContent = p.name;
      text.appendChild(name);
      if (p.description) text.append(` — ${p.description}`);
      if (p.in_place) {
        const how = document.createElement("em");
        how.className = "legend-how";
        how.textContent = ` ${list.dataset.inPlace || ""}`;
        text.appendChild(how);
      }
      li.appendChild(text);
      list.appendChild(li);
    }
  }

  // The rule states of the position shown (null while replaying an earlier one), and the pieces
  // each side has lost so far ({white: [letters], black: [letters]}).
  /** @param {any} notes the state's `annotations` @param {{white: string[], black: string[]} | null} captured */
  update(notes, captured) {
    this.board.setAnnotations(notes);
    this.renderKey(notes);
    this.renderCaptured(captured);
    this.renderReserves(notes ? notes.reserves : null);
  }

  /** @param {any} notes */
  renderKey(notes) {
    const box = this.$("notes-key");
    if (!box) return;
    const present = new Set();
    if (notes) {
      if (notes.gazes.length) present.add("gaze");
      for (const m of notes.marks) present.add(m.kind);
    }
    for (const li of box.querySelectorAll("li[data-kind]")) {
      const kind = li.dataset.kind;
      if (!li.querySelector(".key-icon")) {
        li.prepend(kind === "gaze" || kind === "must-capture" ? swatch(kind) : badgeIcon(kind), " ");
      }
      li.hidden = !present.has(kind);
    }
    const hint = this.$("notes-hint");
    if (hint) hint.hidden = !present.size;
  }

  /** @param {{white: string[], black: string[]} | null} captured */
  renderCaptured(captured) {
    const box = this.$("captured");
    if (!box) return;
    const lost = captured || { white: [], black: [] };
    // what each side has taken: the other side's losses
    for (const row of box.querySelectorAll(".captured-row")) {
      const taken = row.dataset.side === "white" ? lost.black : lost.white;
      const holder = row.querySelector(".captured-pieces");
      holder.replaceChildren(...taken.map((/** @type {string} */ letter) => pieceIcon(this.variant, letter)));
      if (!taken.length) holder.textContent = "—";
    }
  }

  /** @param {{[side: string]: {[letter: string]: number}} | null} reserves */
  renderReserves(reserves) {
    const box = this.$("reserves");
    if (!box) return;
    box.hidden = !reserves;
    if (!reserves) return;
    for (const row of box.querySelectorAll(".reserve-row")) {
      const side = row.dataset.side;
      const holder = row.querySelector(".reserve-pieces");
      holder.replaceChildren();
      // in the legend's order (the page's first state comes with its keys sorted)
      const order = (this.variant.pieces || []).map((/** @type {PieceInfo} */ p) => p.letter)
        .filter((/** @type {string} */ l) => l in reserves[side]);
      for (const letter of order) {
        const count = reserves[side][letter];
        const item = document.createElement("span");
        item.className = "reserve-item" + (count ? "" : " empty");
        item.dataset.letter = letter;
        item.dataset.count = String(count);
        item.appendChild(pieceIcon(this.variant, side === "white" ? letter : letter.toLowerCase()));
        item.append(`×${count}`);
        holder.appendChild(item);
      }
    }
  }
}
