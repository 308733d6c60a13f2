// @ts-check
// PGN import: a pasted or uploaded PGN, read by the server (POST /api/import/read), opened on the
// analysis board (its moves in the address, navigable there; its comments and clocks kept for
// the board in this tab's sessionStorage), or stored as an imported game
// (POST /api/import: finished, unrated, marked imported), whose computer report can then be asked.
import { postJSON } from "/static/api.js";
import { t } from "/static/i18n.js";
import { keepForAnalysis } from "/static/pgnnotes.js";

/**
 * The analysis board's address for a game read from a PGN.
 * @param {{variant: string, fen: string, moves: string[]}} game
 * @returns {string}
 */
export function analysisURL(game) {
  const q = new URLSearchParams({ variant: game.variant, fen: game.fen });
  if (game.moves.length) q.set("moves", game.moves.join(" "));
  return `/analysis?${q}`;
}

/**
 * The hook for the game reports (issue 45, item 1): ask the server to analyse the game
 * ``POST /api/game/{id}/report``. An answer other than success says why.
 * @param {string} gameId
 * @returns {Promise<any>}
 */
export async function requestReport(gameId) {
  return postJSON(`/api/game/${encodeURIComponent(gameId)}/report`, {});
}

export class ImportPage {
  /** @param {HTMLElement} root */
  constructor(root) {
    this.root = root;
    this.text = /** @type {HTMLTextAreaElement} */ (root.querySelector("#pgn"));
    this.err = /** @type {HTMLElement} */ (root.querySelector("#error"));
    const file = /** @type {HTMLInputElement} */ (root.querySelector("#pgn-file"));
    file.addEventListener("change", async () => {
      const chosen = file.files && file.files[0];
      if (!chosen) return;
      this.text.value = await chosen.text();
      this.root.dataset.loaded = "1";
    });
    root.querySelector("#open")?.addEventListener("click", () => this.open());
    root.querySelector("#save")?.addEventListener("click", () => this.save());
    root.querySelector("#report")?.addEventListener("click", () => this.report());
    /** @type {string | null} */
    this.gameId = null;
  }

  async open() {
    this.err.textContent = "";
    try {
      const game = await postJSON("/api/import/read", { pgn: this.text.value });
      keepForAnalysis(game);  // the board shows the comments and clocks while its line follows the game
      location.href = analysisURL(game);
    } catch (e) { this.err.textContent = e.message; }
  }

  async save() {
    this.err.textContent = "";
    try {
      const saved = await postJSON("/api/import", { pgn: this.text.value });
      this.gameId = saved.id;
      const box = /** @type {HTMLElement} */ (this.root.querySelector("#imported"));
      box.hidden = false;
      /** @type {HTMLAnchorElement} */ (this.root.querySelector("#imported-link")).href = saved.url;
      this.root.dataset.imported = saved.id;
    } catch (e) { this.err.textContent = e.message; }
  }

  async report() {
    if (!this.gameId) return;
    const status = /** @type {HTMLElement} */ (this.root.querySelector("#report-status"));
    status.textContent = t("Asking for the report…");
    try {
      await requestReport(this.gameId);
      status.textContent = t("The report is on its way: it shows on the game's page.");
    } catch (e) { status.textContent = e.message; }
  }
}
