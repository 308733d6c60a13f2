// @ts-check
// The comments and clocks of a game read from a PGN (its `pgn_notes`: comment and [%clk] time
// left after each ply, 0 = before the first move), as the move lists show them. Comments are
// someone's text: they are only ever put in the page as text (textContent), never as HTML.
import { t } from "/static/i18n.js";

/** @typedef {{comments: {[ply: string]: string}, clocks: {[ply: string]: number}}} PgnNotes */

const SESSION_KEY = "exochess:pgn-notes";

/**
 * A clock reading as the PGN writes it (h:mm:ss, tenths under a minute): 0:04:58, 0:00:09.2.
 * @param {number} ms
 * @returns {string}
 */
export function formatPgnClock(ms) {
  const left = Math.max(0, ms);
  const s = Math.floor(left / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = String(s % 60).padStart(2, "0");
  const text = `${h}:${String(m).padStart(2, "0")}:${sec}`;
  const tenths = Math.floor((left % 1000) / 100);
  return left < 60_000 && tenths ? `${text}.${tenths}` : text;
}

/**
 * The clock left after a move, as a small label inside its entry.
 * @param {number} ms
 * @returns {HTMLElement}
 */
export function clockNode(ms) {
  const span = document.createElement("span");
  span.className = "move-clock";
  span.title = t("Clock left after this move");
  span.textContent = formatPgnClock(ms);
  return span;
}

/**
 * A comment, as text.
 * @param {string} text
 * @param {string} [tag]
 * @returns {HTMLElement}
 */
export function commentNode(text, tag = "div") {
  const el = document.createElement(tag);
  el.className = "move-comment";
  el.textContent = text;
  return el;
}

/**
 * Keep a PGN's notes for the analysis board that opens it next in this tab.
 * @param {{variant: string, fen: string, moves: string[], comments: {[ply: string]: string}, clocks: {[ply: string]: number}}} game
 */
export function keepForAnalysis(game) {
  const { variant, fen, moves, comments, clocks } = game;
  try { sessionStorage.setItem(SESSION_KEY, JSON.stringify({ variant, fen, moves, comments, clocks })); }
  catch { /* private mode, or full: the board opens without the comments */ }
}

/**
 * The notes of the PGN last opened on the analysis board in this tab that apply to a line:
 * those of the plies where the line still follows the PGN's moves (a line that leaves the game
 * keeps the comments up to where it left).
 * @param {string} variant @param {string} startFen @param {string[]} moves
 * @returns {PgnNotes | null}
 */
export function notesForLine(variant, startFen, moves) {
  let kept;
  try { kept = JSON.parse(sessionStorage.getItem(SESSION_KEY) || "null"); } catch { kept = null; }
  if (!kept || kept.variant !== variant || kept.fen !== startFen) return null;
  let same = 0;
  while (same < moves.length && same < kept.moves.length && moves[same] === kept.moves[same]) same++;
  /** @type {PgnNotes} */
  const notes = { comments: {}, clocks: {} };
  for (const [ply, text] of Object.entries(kept.comments || {})) if (Number(ply) <= same) notes.comments[ply] = String(text);
  for (const [ply, ms] of Object.entries(kept.clocks || {})) if (Number(ply) <= same) notes.clocks[ply] = Number(ms);
  return notes;
}
