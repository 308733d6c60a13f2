// @ts-check
// Motion on a BoardView: a move slides action by action (a chain is seen step by step, the
// computer's quick reply is not missed), and the last move's actions are drawn as arrows.
// The board's own render stays the owner of the final picture: every animation ends with the
// position the server sent.
import { parsePlacement } from "/static/board.js";

const SVGNS = "http://www.w3.org/2000/svg";
export const STEP_MS = 260;

// The pieces after one action (square -> FEN letter): the same reading of the action kinds as
// the move text (see exochess/move.py).  An approximation for the few pieces whose powers change
// other squares (the server's FEN corrects it when the move is over).
/**
 * @param {Map<string, string>} pieces square -> FEN letter
 * @param {ActionView} action
 * @returns {Map<string, string>}
 */
export function applyAction(pieces, action) {
  const out = new Map(pieces);
  const mover = out.get(action.from);
  if (action.kind === "~") {
    const other = out.get(action.to);
    if (other) out.set(action.from, other); else out.delete(action.from);
    if (mover) out.set(action.to, mover);
    return out;
  }
  for (const v of action.victims || []) out.delete(v);
  if (action.kind === "*") { out.delete(action.from); out.delete(action.to); return out; }
  if (action.kind === "@" && action.from !== action.to) return out;  // a shot: the shooter stays
  if (mover) {
    out.delete(action.from);
    const white = mover === mover.toUpperCase();
    const letter = action.promotion ? (white ? action.promotion : action.promotion.toLowerCase()) : mover;
    out.set(action.to, letter);
  }
  return out;
}

// The arrows of a move: one per action that goes somewhere (a rifle fired in place has none).
/**
 * @param {MoveView | null | undefined} move
 * @returns {{from: string, to: string, shot: boolean}[]}
 */
export function moveArrows(move) {
  if (!move) return [];
  /** @type {ActionView[]} */
  const actions = move.actions && move.actions.length ? move.actions : [move];
  return actions.filter((a) => a.from !== a.to).map((a) => ({ from: a.from, to: a.to, shot: a.kind === "@" }));
}

/** @returns {boolean} */
function reducedMotion() {
  return window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

export class Motion {
  /** @param {import("/static/board.js").BoardView} board */
  constructor(board) {
    this.board = board;
    /** @type {{from: string, to: string, shot: boolean}[]} */
    this.arrows = [];
    this.token = 0;
    board.renderHooks.push((/** @type {import("/static/board.js").BoardView} */ b) => this.drawArrows(b));
  }

  /** @param {{from: string, to: string, shot: boolean}[] | null} arrows (moveArrows) */
  setArrows(arrows) { this.arrows = arrows || []; this.board.render(); }

  /** @param {import("/static/board.js").BoardView} board */
  drawArrows(board) {
    const layer = board.layers.arrows;
    this.arrows.forEach((a, i) => {
      const [x1, y1] = board.squareXY(a.from);
      const [x2, y2] = board.squareXY(a.to);
      const sx = x1 + 50, sy = y1 + 50, ex = x2 + 50, ey = y2 + 50;
      const len = Math.hypot(ex - sx, ey - sy);
      if (!len) return;
      const ux = (ex - sx) / len, uy = (ey - sy) / len;
      const head = 34, tipX = ex - ux * 12, tipY = ey - uy * 12;
      const baseX = tipX - ux * head, baseY = tipY - uy * head;
      const g = document.createElementNS(SVGNS, "g");
      g.setAttribute("class", `arrow${a.shot ? " shot" : ""}`);
      g.setAttribute("data-arrow", `${a.from}-${a.to}`);
      g.setAttribute("data-step", String(i + 1));
      const line = document.createElementNS(SVGNS, "line");
      for (const [k, v] of Object.entries({ x1: sx + ux * 18, y1: sy + uy * 18, x2: baseX, y2: baseY })) line.setAttribute(k, String(v));
      const tip = document.createElementNS(SVGNS, "polygon");
      const px = -uy * 22, py = ux * 22;
      tip.setAttribute("points", `${tipX},${tipY} ${baseX + px},${baseY + py} ${baseX - px},${baseY - py}`);
      g.append(line, tip);
      layer.appendChild(g);
    });
  }

  // Stop a running animation (a newer position is being drawn): its promise resolves to false.
  cancel() { this.token++; delete this.board.svg.dataset.animating; }

  // Play `move` out from the position `beforeFen` on a board already set to the position after
  // it (its legal moves too: input is never blocked). Only the pieces drawn change meanwhile;
  // the animation jumps to its end as soon as the player selects a piece. Resolves to true
  // when it ran to its end, false when cancelled.
  /** @param {string} beforeFen @param {MoveView} move */
  async play(beforeFen, move) {
    const token = ++this.token;
    const board = this.board;
    const final = board.pieces;
    let pieces = parsePlacement(beforeFen, board.width, board.height);
    /** @type {ActionView[]} */
    const steps = move.actions && move.actions.length ? move.actions : [move];
    board.svg.dataset.animating = "1";
    board.pieces = pieces;
    board.render();
    for (const action of steps) {
      if (board.sel || board.chain) break;
      await this.step(action, token);
      if (token !== this.token) return false;
      pieces = applyAction(pieces, action);
      board.pieces = pieces;
      board.render();
    }
    if (token !== this.token) return false;
    board.pieces = final;
    board.render();
    delete board.svg.dataset.animating;
    return true;
  }

  // One action: the acting piece slides (both pieces of a swap), the removed ones fade.
  /** @param {ActionView} action @param {number} token @returns {Promise<unknown>} */
  step(action, token) {
    const board = this.board;
    const layer = board.layers.pieces;
    const find = (/** @type {string} */ sq) => layer.querySelector(`g.piece[data-square="${sq}"]`);
    /** @type {[Element | null, string, string][]} */
    const slides = [];
    const fades = new Set(action.victims || []);
    if (action.kind === "~") {
      slides.push([find(action.from), action.from, action.to], [find(action.to), action.to, action.from]);
    } else if (action.kind === "*") {
      fades.add(action.from); fades.add(action.to);
    } else if (!(action.kind === "@" && action.from !== action.to)) {
      slides.push([find(action.from), action.from, action.to]);
    }
    const fading = /** @type {Element[]} */ ([...fades].map(find).filter(Boolean));
    const duration = reducedMotion() ? 0 : STEP_MS;
    return new Promise((resolve) => {
      let done = false;
      const finish = () => { done = true; resolve(undefined); };
      const start = performance.now();
      const frame = (/** @type {number} */ now) => {
        if (done) return;
        if (token !== this.token) { finish(); return; }
        const t = duration ? Math.min(1, (now - start) / duration) : 1;
        const e = t < 0.5 ? 2 * t * t : 1 - ((-2 * t + 2) ** 2) / 2;  // ease in and out
        for (const [node, a, b] of slides) {
          if (!node || !node.isConnected) continue;
          const [x1, y1] = board.squareXY(a);
          const [x2, y2] = board.squareXY(b);
          node.setAttribute("transform", `translate(${x1 + (x2 - x1) * e},${y1 + (y2 - y1) * e})`);
          layer.appendChild(node);  // the moving piece passes above the others
        }
        for (const node of fading) node.setAttribute("opacity", String(1 - e));
        if (t < 1) requestAnimationFrame(frame); else finish();
      };
      requestAnimationFrame(frame);
      // a hidden tab gets no animation frames: the move still ends on time
      setTimeout(() => { if (!done) finish(); }, duration + 120);
    });
  }
}
