// @ts-check
// Lesson progress: the best stars of each completed stage, kept in this browser (localStorage)
// and, for a signed-in player, in the account (/api/learn/progress). Reading merges both (the
// better score wins) and sends the account what only this browser knew.
import { getJSON, postJSON } from "/static/api.js";
import { t } from "/static/i18n.js";

const KEY = "exochess-learn";
const PRACTICE_KEY = "exochess-practice";

function read(key) {
  try { return JSON.parse(localStorage.getItem(key) || "{}") || {}; } catch { return {}; }
}

function write(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode: kept for this page only */ }
}

export function localProgress() { return read(KEY); }

export function stageStars(progress, game, stage) { return (progress[game] || {})[stage] || 0; }

// Stars for an exercise solved with `used` moves (failed attempts included) against its par:
// three at par, one fewer per extra move, at least one (exochess.lessons.stars).
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

export async function recordStage(game, stage, stars) {
  const p = localProgress();
  p[game] = p[game] || {};
  p[game][stage] = Math.max(p[game][stage] || 0, stars);
  write(KEY, p);
  try { await postJSON("/api/learn/progress", { variant: game, stage, stars }); } catch { /* kept here */ }
}

export function starText(n) { return n ? "★".repeat(n) + "☆".repeat(3 - n) : ""; }

// Fills every [data-stars="game/stage"] and [data-total] counter under root.
export function showProgress(root, progress) {
  for (const el of root.querySelectorAll("[data-stars]")) {
    const [game, stage] = el.dataset.stars.split("/");
    const n = stageStars(progress, game, stage);
    el.textContent = starText(n);
    el.setAttribute("aria-label", n ? t("{stars} of 3 stars", { stars: n }) : t("not done yet"));
    el.closest("li")?.classList.toggle("done", n > 0);
  }
  for (const el of root.querySelectorAll(".learn-count")) {
    const done = Object.keys(progress[el.dataset.variant] || {}).length;
    el.textContent = t("{done} of {total} stages done", { done, total: el.dataset.total });
  }
}

export function practiceWon(game) { return read(PRACTICE_KEY)[game] || {}; }

export function recordPracticeWin(game, id) {
  const p = read(PRACTICE_KEY);
  p[game] = p[game] || {};
  p[game][id] = true;
  write(PRACTICE_KEY, p);
}

// The practice game a game page shows, if it was started from /practice (see practice.js).
export function practiceGame(gameId) {
  try { return JSON.parse(sessionStorage.getItem(`exochess-practice-game:${gameId}`) || "null"); } catch { return null; }
}

export function rememberPracticeGame(gameId, info) {
  try { sessionStorage.setItem(`exochess-practice-game:${gameId}`, JSON.stringify(info)); } catch { /* no retry link */ }
}
