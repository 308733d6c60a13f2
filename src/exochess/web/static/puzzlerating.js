// @ts-check
// A guest's puzzles, kept in this browser (localStorage "exochess-puzzles"): per game the puzzle
// rating (Glicko-2: rating, deviation, volatility; the server computes each change), the best
// streak and the latest puzzles played (not served again). A signed-in player's live in the
// account (/api/puzzles/player); this browser's copy is not used for them.

const KEY = "exochess-puzzles";
const SEEN = 200;
const HISTORY = 50;

/**
 * @typedef {{rating: number, rd: number, volatility: number}} Glicko
 * @typedef {{id: string, solved: boolean, rating: number | null, at: string}} Played
 * @typedef {{rating: number, rd: number, volatility: number, plays: number, best_streak: number,
 *   seen: string[], history: Played[]}} GuestGame
 */

/** @returns {{[game: string]: GuestGame}} */
function readAll() {
  try { return JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { return {}; }
}

/** @param {{[game: string]: GuestGame}} all */
function writeAll(all) {
  try { localStorage.setItem(KEY, JSON.stringify(all)); } catch { /* private mode: this page only */ }
}

/**
 * This browser's puzzles of `game` (the starting rating when none).
 * @param {string} game
 * @returns {GuestGame}
 */
export function guestGame(game) {
  /** @type {GuestGame} */
  const start = { rating: 1500, rd: 350, volatility: 0.06, plays: 0, best_streak: 0, seen: [], history: [] };
  return Object.assign(start, readAll()[game] || {});
}

/**
 * The Glicko-2 rating a request carries for the server to update.
 * @param {string} game
 * @returns {Glicko}
 */
export function guestRating(game) {
  const g = guestGame(game);
  return { rating: g.rating, rd: g.rd, volatility: g.volatility };
}

/**
 * Keep what a finished puzzle changed: the new rating (when it was rated), the puzzle among
 * those seen, the best streak.
 * @param {string} game
 * @param {string} id
 * @param {boolean} solved
 * @param {Glicko | null} rating
 * @param {number} [streak] puzzles solved in the streak so far (this one included)
 */
export function recordGuest(game, id, solved, rating, streak = 0) {
  const all = readAll();
  const g = guestGame(game);
  if (rating) { g.rating = rating.rating; g.rd = rating.rd; g.volatility = rating.volatility; }
  g.plays += 1;
  g.best_streak = Math.max(g.best_streak, streak);
  g.seen = [id, ...g.seen.filter((x) => x !== id)].slice(0, SEEN);
  g.history = [{ id, solved, rating: rating ? Math.round(rating.rating) : null, at: new Date().toISOString() },
    ...g.history].slice(0, HISTORY);
  all[game] = g;
  writeAll(all);
}
