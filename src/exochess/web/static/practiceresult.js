// @ts-check
// On the game page: the end of a practice game (started from /practice) gets a result screen with
// a retry (won or lost; for a position to hold, held once its moves are survived, or failed); and a first visit to a game's page offers that game's course.
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
  // A hold (info.goal "hold") is achieved once the player has made info.moves moves, each one
  // answered, without losing: the game's ply counts from the practice position, so that is
  // 2 * moves plies with the game still going (these games have no draws, but a drawn end
  // would count as held too). A win needs the game won.
  const hold = info.goal === "hold";
  const show = () => {
    const s = page.state;
    if (!s || !box.hidden) return;
    const mine = info.color === "white" ? "1-0" : "0-1";
    let result;
    if (s.status === "active") {
      if (!hold || s.ply < 2 * info.moves) return;
      result = "held";
    } else if (hold) {
      result = s.result === mine || s.result === "1/2-1/2" ? "held" : "failed";
    } else {
      result = s.result === mine ? "won" : "lost";
    }
    const success = result === "won" || result === "held";
    if (success) recordPracticeWin(info.variant, info.id);
    const title = root.querySelector("#practice-result-title");
    title.textContent = {
      won: t("Well played: you won this position!"),
      lost: t("Not this time: the position is still there to win."),
      held: t("Well held: you survived {moves} moves!", { moves: info.moves }),
      failed: t("Not this time: the position fell before the end. Try again."),
    }[result];
    box.dataset.result = result;
    box.hidden = false;
    announce(root.querySelector("#announce"), title.textContent);
  };
  const watched = { childList: true, characterData: true, subtree: true };
  const observer = new MutationObserver(show);
  observer.observe(root.querySelector("#status"), watched);
  const moves = root.querySelector("#moves");
  if (moves) observer.observe(moves, watched);
  show();
  return true;
}
