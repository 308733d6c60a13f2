// Moves and squares in words, for the move list, the screen-reader announcements and the
// keyboard's square names. The piece letters and names are the Variant's (variant_json).
import { parsePlacement } from "/static/board.js";

export function colorWord(letter) { return letter === letter.toUpperCase() ? "White" : "Black"; }

export function pieceName(variant, letter) {
  const type = letter.toUpperCase();
  return (variant.piece_names && variant.piece_names[type]) || type;
}

// "e4, White Archer" / "e4, empty".
export function squareLabel(variant, square, letter) {
  return letter ? `${square}, ${colorWord(letter)} ${pieceName(variant, letter)}` : `${square}, empty`;
}

// The letter of the piece that makes `move` in the position `fenBefore` (null if unknown).
export function moverLetter(variant, fenBefore, move) {
  if (!fenBefore) return null;
  return parsePlacement(fenBefore, variant.width, variant.height).get(move.from) || null;
}

// One move list entry: the mover's letter (its name as a tooltip), the move text, a capture mark.
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
    cap.title = taken === 1 ? "captures a piece" : `captures ${taken} pieces`;
    cap.textContent = taken === 1 ? "×" : `×${taken}`;
    frag.appendChild(cap);
  }
  return frag;
}

// A whole move in a sentence: "White Archer e1 shoots e3, capturing e3".
export function moveSentence(variant, fenBefore, move) {
  const letter = moverLetter(variant, fenBefore, move);
  const who = letter ? `${colorWord(letter)} ${pieceName(variant, letter)}` : "";
  const steps = (move.actions && move.actions.length ? move.actions : [move]).map((a) => {
    let words;
    if (a.kind === "~") words = `${a.from} swaps with ${a.to}`;
    else if (a.kind === "*") words = `${a.from} destroys itself with ${a.to}`;
    else if (a.kind === "@") words = a.from === a.to ? `${a.from} fires in place` : `${a.from} shoots ${a.to}`;
    else words = `${a.from} to ${a.to}`;
    if (a.victims && a.victims.length && a.kind !== "*") words += `, capturing ${a.victims.join(", ")}`;
    if (a.promotion) words += `, promotes to ${pieceName(variant, a.promotion)}`;
    return words;
  });
  return `${who} ${steps.join("; then ")}`.trim();
}
