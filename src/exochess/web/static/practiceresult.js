// @ts-check
// On the game page: the end of a practice game (started from /practice) gets a result screen with
// a retry; and a first visit to a game's page offers that game's course.
import { postJSON } from "/static/api.js";
import { t } from "/static/i18n.js";
import { announce } from "/static/keyboard.js";
import { localProgress, practiceGame, recordPracticeWin, rememberPracticeGame } from "/static/learnprogress.js";

const DISMISSED = "exochess-learn-offer-dismissed";

/** @param {any} root the game page's element @param {string} game */
export function offerCourse(root, game) {
  const offer = root.querySelector("#learn-offer");
  if (!offer) return;
  let dismissed = [];
  try { dismissed = JSON.parse(localStorage.getItem(DISMISSED) || "[]") || []; } catch { dismissed = []; }
  if (localProgress()[game] || dismissed.includes(game)) return;
  offer.hidden = false;
  offer.querySelector("#learn-offer-close").addEventListener("click", () => {
    offer.hidden = true;
    try { localStorage.setItem(DISMISSED, JSON.stringify([...dismissed, game])); } catch { /* shown again next time */ }
  });
}

// Returns whether this game is a practice game.
/** @param {any} root the game page's element @param {import("/static/game.js").GamePage} page */
export function watchPractice(root, page) {
  const info = practiceGame(page.id);
  if (!info) return false;
  const box = root.querySelector("#practice-result");
  root.querySelector("#practice-back").href = `/practice/${info.variant}`;
  root.querySelector("#practice-retry").addEventListener("click", async () => {
    try {
      const created = await postJSON("/api/games", { variant: info.variant, opponent: "computer", level: info.level,
        color: info.color, fen: info.fen });
      rememberPracticeGame(created.id, info);
      location.href = created.seats[info.color].url;
    } catch (e) { root.querySelector("#error").textContent = e.message; }
  });
  const show = () => {
    const s = page.state;
    if (!s || s.status === "active" || !box.hidden) return;
    const won = (info.color === "white" && s.result === "1-0") || (info.color === "black" && s.result === "0-1");
    if (won) recordPracticeWin(info.variant, info.id);
    const title = root.querySelector("#practice-result-title");
    title.textContent = won ? t("Well played: you won this position!") : t("Not this time: the position is still there to win.");
    box.dataset.result = won ? "won" : "lost";
    box.hidden = false;
    announce(root.querySelector("#announce"), title.textContent);
  };
  new MutationObserver(show).observe(root.querySelector("#status"), { childList: true, characterData: true, subtree: true });
  show();
  return true;
}
