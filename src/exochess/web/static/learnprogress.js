// @ts-check
// Lesson progress: the best stars of each completed stage, kept in this browser (localStorage)
// and, for a signed-in player, in the account (/api/learn/progress). Reading merges both (the
// better score wins) and sends the account what only this browser knew.
import { getJSON, postJSON } from "/static/api.js";
import { t } from "/static/i18n.js";

/** @typedef {{[game: string]: {[stage: string]: number}}} Progress the best stars per stage */

const KEY = "exochess-learn";
const PRACTICE_KEY = "exochess-practice";

/** @param {string} key */
function read(key) {
  try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch { return {}; }
}

/** @param {string} key @param {unknown} value */
function write(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode: kept for this page only */ }
}

export function localProgress() { return read(KEY); }

/** @param {Progress} progress @param {string} game @param {string} stage @returns {number} */
export function stageStars(progress, game, stage) { return (progress[game] || {})[stage] || 0; }

// Stars for an exercise solved with `used` moves (failed attempts included) against its par:
// three at par, one fewer per extra move, at least one (exochess.lessons.stars).
/** @param {number} par @param {number} used */
export function exerciseStars(par, used) { return Math.max(1, Math.min(3, 3 - (used - par))); }

export async function loadProgress() {
  const merged = localProgress();
  let server = { signed_in: false, progress: {} };
  try { server = await getJSON("/api/learn/progress"); } catch { /* offline: this browser's own */ }
  const behind = [];
  for (const [game, stages] of Object.entries(merged)) {
    for (const [stage, stars] of Object.entries(stages)) {
      if (server.signed_in && stars > stageStars(server.progress, game, stage)) behind.push({ variant: game, stage, stars });
    }
  }
  for (const [game, stages] of Object.entries(server.progress || {})) {
    merged[game] = merged[game] || {};
    for (const [stage, stars] of Object.entries(stages)) merged[game][stage] = Math.max(merged[game][stage] || 0, stars);
  }
  write(KEY, merged);
  for (const b of behind) postJSON("/api/learn/progress", b).catch(() => {});
  return merged;
}

/** @param {string} game @param {string} stage @param {number} stars */
export async function recordStage(game, stage, stars) {
  const p = localProgress();
  p[game] = p[game] || {};
  p[game][stage] = Math.max(p[game][stage] || 0, stars);
  write(KEY, p);
  try { await postJSON("/api/learn/progress", { variant: game, stage, stars }); } catch { /* kept here */ }
}

/** @param {number} n */
export function starText(n) { return n ? "★".repeat(n) + "☆".repeat(3 - n) : ""; }

// Fills every [data-stars="game/stage"] and [data-total] counter under root.
/** @param {ParentNode} root @param {Progress} progress */
export function showProgress(root, progress) {
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll("[data-stars]"))) {
    const [game, stage] = (el.dataset.stars || "").split("/");
    const n = stageStars(progress, game, stage);
    el.textContent = starText(n);
    el.setAttribute("aria-label", n ? t("{stars} of 3 stars", { stars: n }) : t("not done yet"));
    el.closest("li")?.classList.toggle("done", n > 0);
  }
  for (const el of /** @type {NodeListOf<HTMLElement>} */ (root.querySelectorAll(".learn-count"))) {
    const { variant = "", total = "" } = el.dataset;  // both set by the template
    const done = Object.keys(progress[variant] || {}).length;
    el.textContent = t("{done} of {total} stages done", { done, total });
  }
}

/** @param {string} game @returns {{[id: string]: boolean}} */
export function practiceWon(game) { return read(PRACTICE_KEY)[game] || {}; }

/** @param {string} game @param {string} id */
export function recordPracticeWin(game, id) {
  const p = read(PRACTICE_KEY);
  p[game] = p[game] || {};
  p[game][id] = true;
  write(PRACTICE_KEY, p);
}

// The practice game a game page shows, if it was started from /practice (see practice.js).
/** @param {string} gameId */
export function practiceGame(gameId) {
  try { return JSON.parse(sessionStorage.getItem(`exochess-practice-game:${gameId}`) || "null"); } catch { return null; }
}

/** @param {string} gameId @param {unknown} info */
export function rememberPracticeGame(gameId, info) {
  try { sessionStorage.setItem(`exochess-practice-game:${gameId}`, JSON.stringify(info)); } catch { /* no retry link */ }
}
