// @ts-check
// The board from the keyboard and for screen readers: every square is a named button
// ("e4, White Archer"), one of them in the tab order at a time (a roving tabindex); the arrow
// keys move between squares as they are drawn (flipped or not), Enter or Space acts as a click
// (select, move, continue a chain, fire a piece in place). Moves are announced in a live region.
import { squareName, parseSquare } from "/static/board.js";
import { t } from "/static/i18n.js";
import { squareLabel } from "/static/movewords.js";

const SVGNS = "http://www.w3.org/2000/svg";

export class BoardKeys {
  /**
   * @param {import("/static/board.js").BoardView} board
   * @param {VariantInfo} variant
   */
  constructor(board, variant) {
    this.board = board;
    this.variant = variant;
    this.cursor = null;
    this.focused = false;
    const svg = board.svg;
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", t("{game} board, {width} by {height}: arrow keys move between squares, Enter or Space selects and moves",
      { game: variant.title || "", width: board.width, height: board.height }).trim());
    this.ring = document.createElementNS(SVGNS, "rect");
    this.ring.setAttribute("class", "kbd-cursor");
    this.ring.setAttribute("width", "100");
    this.ring.setAttribute("height", "100");
    svg.appendChild(this.ring);
    svg.addEventListener("keydown", (e) => this.key(e));
    svg.addEventListener("focusin", (e) => {
      const target = /** @type {SVGElement} */ (e.target);
      const sq = target.dataset && target.dataset.square;
      if (sq) { this.cursor = sq; this.focused = true; this.label(); }
    });
    svg.addEventListener("focusout", (e) => {
      const next = /** @type {Node | null} */ (e.relatedTarget);
      if (!next || !svg.contains(next)) { this.focused = false; this.label(); }
    });
    board.renderHooks.push(() => this.label());
    board.render();
  }

  // The square first reached by Tab: the cursor, else a piece that may move, else a1.
  home() {
    const b = this.board;
    const first = b._candidates()[0];
    return this.cursor || (first && first.from) || squareName(0, 0);
  }

  // Names, tab order and the focus ring, after every render.
  label() {
    const b = this.board;
    const pieces = b._shownPieces();
    const dests = b._destinations();
    const home = this.home();
    for (const rect of /** @type {HTMLCollectionOf<SVGElement>} */ (b.layers.squares.children)) {
      const sq = rect.dataset.square || "";
      let text = squareLabel(this.variant, sq, pieces.get(sq));
      if (b.sel === sq) text = t("{square}, selected", { square: text });
      if (b.premove && b.premove.from === sq) text = t("{square}, premove from here", { square: text });
      if (b.premove && b.premove.to === sq) text = t("{square}, premove to here", { square: text });
      if (dests.has(sq)) {
        text = dests.get(sq) || pieces.has(sq) ? t("{square}, capture here", { square: text }) : t("{square}, move here", { square: text });
      }
      rect.setAttribute("role", "button");
      rect.setAttribute("aria-label", text);
      rect.setAttribute("tabindex", sq === home ? "0" : "-1");
    }
    const [x, y] = b.squareXY(home);
    this.ring.setAttribute("x", String(x));
    this.ring.setAttribute("y", String(y));
    this.ring.setAttribute("visibility", this.focused ? "visible" : "hidden");
    b.svg.appendChild(this.ring);  // above everything drawn since
    if (this.focused) {
      const rect = this.rect(home);
      if (rect && document.activeElement !== rect) rect.focus({ preventScroll: true });
    }
  }

  /** @param {string | null} sq @returns {SVGElement | null} */
  rect(sq) { return this.board.layers.squares.querySelector(`rect[data-square="${sq}"]`); }

  /** @param {KeyboardEvent} e */
  key(e) {
    const b = this.board;
    const target = /** @type {HTMLElement | SVGElement} */ (e.target);
    const sq = target.dataset && target.dataset.square;
    if (!sq) return;
    /** @type {{[key: string]: [number, number]}} */
    const steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    if (steps[e.key]) {
      let [df, dr] = steps[e.key];
      if (b.flipped) { df = -df; dr = -dr; }
      const [f, r] = parseSquare(sq);
      const nf = Math.max(0, Math.min(b.width - 1, f + df));
      const nr = Math.max(0, Math.min(b.height - 1, r + dr));
      this.cursor = squareName(nf, nr);
      this.label();
      const rect = this.rect(this.cursor);
      if (rect) rect.focus({ preventScroll: true });
    } else if (e.key === "Enter" || e.key === " ") {
      this.cursor = sq;
      b.activate(sq);
    } else if (e.key === "Escape") {
      b.cancelInput();
    } else {
      return;
    }
    // the page's own arrow keys (replay) are for when the board does not have the focus
    e.preventDefault();
    e.stopPropagation();
  }
}

// Say `text` through the page's polite live region.
/** @param {Element | null} region @param {string} text */
export function announce(region, text) {
  if (!region) return;
  // a changed text node is what screen readers pick up; the same move twice is still said
  region.textContent = "";
  setTimeout(() => { region.textContent = text; }, 30);
}
