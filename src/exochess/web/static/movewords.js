// @ts-check
// Moves and squares in words, for the move list, the screen-reader announcements and the
// keyboard's square names. The piece letters and names are the Variant's (variant_json).
import { parsePlacement } from "/static/board.js";
import { t } from "/static/i18n.js";

/** @param {string} letter */
export function colorWord(letter) { return letter === letter.toUpperCase() ? t("White") : t("Black"); }

/** @param {VariantInfo} variant @param {string} letter @returns {string} */
export function pieceName(variant, letter) {
  const type = letter.toUpperCase();
  return (variant.piece_names && variant.piece_names[type]) || type;
}

// "White Archer": the piece on a square, by its side and name (in the page's language).
/** @param {VariantInfo} variant @param {string} letter @returns {string} */
export function pieceWords(variant, letter) {
  const piece = pieceName(variant, letter);
  return letter === letter.toUpperCase() ? t("White {piece}", { piece }) : t("Black {piece}", { piece });
}

// "e4, White Archer" / "e4, empty".
/** @param {VariantInfo} variant @param {string} square @param {string | null | undefined} letter */
export function squareLabel(variant, square, letter) {
  return letter ? t("{square}, {piece}", { square, piece: pieceWords(variant, letter) }) : t("{square}, empty", { square });
}

// The letter of the piece that makes `move` in the position `fenBefore` (null if unknown).
/**
 * @param {VariantInfo} variant
 * @param {string | null | undefined} fenBefore
 * @param {{from: string}} move
 * @returns {string | null}
 */
export function moverLetter(variant, fenBefore, move) {
  if (!fenBefore) return null;
  return parsePlacement(fenBefore, variant.width, variant.height).get(move.from) || null;
}

// One move list entry: the mover's letter (its name as a tooltip), the move text, a capture mark.
/**
 * @param {VariantInfo} variant
 * @param {string | null | undefined} fenBefore
 * @param {MoveView} move
 * @returns {DocumentFragment}
 */
export function moveEntry(variant, fenBefore, move) {
  const frag = document.createDocumentFragment();
  const letter = moverLetter(variant, fenBefore, move);
  if (letter) {
    const pc = document.createElement("span");
    pc.className = "pc";
    pc.title = pieceName(variant, letter);
    pc.textContent = letter.toUpperCase();
    frag.appendChild(pc);
  }
  frag.appendChild(document.createTextNode(move.text));
  const taken = (move.victims || []).length;
  if (taken) {
    const cap = document.createElement("span");
    cap.className = "cap";
    cap.title = taken === 1 ? t("captures a piece") : t("captures {count} pieces", { count: taken });
    cap.textContent = taken === 1 ? "×" : `×${taken}`;
    frag.appendChild(cap);
  }
  return frag;
}

// A whole move in a sentence: "White Archer e1 shoots e3, capturing e3".
/**
 * @param {VariantInfo} variant
 * @param {string | null | undefined} fenBefore
 * @param {MoveView} move
 * @returns {string}
 */
export function moveSentence(variant, fenBefore, move) {
  const letter = moverLetter(variant, fenBefore, move);
  const who = letter ? pieceWords(variant, letter) : "";
  /** @type {ActionView[]} */
  const actions = move.actions && move.actions.length ? move.actions : [move];
  const steps = actions.map((a) => {
    let words;
    const squares = { from: a.from, to: a.to };
    if (a.kind === "~") words = t("{from} swaps with {to}", squares);
    else if (a.kind === "*") words = t("{from} destroys itself with {to}", squares);
    else if (a.kind === "@") words = a.from === a.to ? t("{from} fires in place", squares) : t("{from} shoots {to}", squares);
    else words = t("{from} to {to}", squares);
    if (a.victims && a.victims.length && a.kind !== "*") {
      words = t("{action}, capturing {squares}", { action: words, squares: a.victims.join(", ") });
    }
    if (a.promotion) words = t("{action}, promotes to {piece}", { action: words, piece: pieceName(variant, a.promotion) });
    return words;
  });
  return `${who} ${steps.join(t("; then "))}`.trim();
}
