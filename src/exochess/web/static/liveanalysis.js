// @ts-check
// Live analysis: the engine's lines as it deepens, over the websocket /ws/analysis (docs/web.md,
// "Live analysis"), with an evaluation bar. The page says which position to analyse
// (setPosition); the panel restarts the analysis when the position changes while it runs.
import { t } from "/static/i18n.js";

/**
 * One line of an update, as the server sends it (scores for the side to move).
 * @typedef {{multipv: number, depth: number, score_cp: number, mate: number | null, pv: string[]}} LiveLine
 * @typedef {{type: string, id: number, depth: number, nodes: number, nps: number, side_to_move: string,
 *   score_cp: number, mate: number | null, lines: LiveLine[]}} LiveInfo
 * @typedef {{variant: string, fen: string | null, moves: string[], game?: string | null}} LivePosition
 */

/**
 * A line's score from White's point of view, as text ("+0.35", "#3" White mates in 3 moves, "#-2").
 * @param {{score_cp: number, mate: number | null}} line @param {string} side the side to move
 * @returns {string}
 */
export function scoreText(line, side) {
  const sign = side === "black" ? -1 : 1;
  if (line.mate !== null && line.mate !== undefined) {
    const moves = Math.max(1, Math.ceil(Math.abs(line.mate) / 2));
    return `#${line.mate * sign > 0 ? "" : "-"}${moves}`;
  }
  const white = sign * line.score_cp;
  return `${white >= 0 ? "+" : ""}${(white / 100).toFixed(2)}`;
}

/**
 * White's share of the evaluation bar, 0 to 100 (a logistic curve of the score, a mate is 0 or 100).
 * @param {{score_cp: number, mate: number | null}} line @param {string} side
 * @returns {number}
 */
export function whiteShare(line, side) {
  const sign = side === "black" ? -1 : 1;
  if (line.mate !== null && line.mate !== undefined) return line.mate * sign > 0 ? 100 : 0;
  const white = sign * line.score_cp;
  return 100 / (1 + Math.exp(-white / 250));
}

export class LiveAnalysis {
  /**
   * @param {HTMLElement} root the page (holds #live, #live-out and #evalbar)
   * @param {(moves: string[]) => void} onPlay a line's moves clicked, to play them on the board
   */
  constructor(root, onPlay) {
    this.root = root;
    this.onPlay = onPlay;
    this.button = /** @type {HTMLButtonElement} */ (root.querySelector("#live"));
    this.out = /** @type {HTMLElement} */ (root.querySelector("#live-out"));
    this.bar = /** @type {HTMLElement} */ (root.querySelector("#evalbar"));
    this.running = false;
    /** @type {LivePosition | null} */
    this.position = null;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.current = 0;  // the id of the analysis whose updates are shown (0: none)
    this.button.addEventListener("click", () => (this.running ? this.stop() : this.start()));
  }

  /** The position on the board changed (a running analysis follows it). @param {LivePosition} position */
  setPosition(position) {
    this.position = position;
    if (this.running) this.send();
    else this.bar.hidden = true;
  }

  /** The position on the board is over: nothing to analyse. */
  gameOver() {
    if (this.running) this.stop();
    this.position = null;
    this.bar.hidden = true;
    this.out.textContent = "";
  }

  start() {
    if (!this.position) return;
    this.running = true;
    this.button.textContent = t("Stop analysis");
    this.button.setAttribute("aria-pressed", "true");
    this.out.textContent = t("Thinking…");
    this.send();
  }

  stop() {
    this.running = false;
    this.button.textContent = t("Live analysis");
    this.button.setAttribute("aria-pressed", "false");
    this.root.dataset.live = "stopped";
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ type: "stop" }));
  }

  send() {
    if (!this.position) return;
    const message = JSON.stringify({ type: "start", lines: 3, ...this.position });
    this.current = 0;
    if (this.ws && this.ws.readyState === WebSocket.OPEN) { this.ws.send(message); return; }
    if (this.ws && this.ws.readyState === WebSocket.CONNECTING) { this.pending = message; return; }
    const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/analysis`);
    this.ws = ws;
    this.pending = message;
    ws.addEventListener("open", () => { if (this.pending) ws.send(this.pending); this.pending = null; });
    ws.addEventListener("message", (e) => this.receive(JSON.parse(e.data)));
    ws.addEventListener("close", () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.running) { this.out.textContent = t("The connection to the engine was lost."); this.stop(); }
    });
  }

  /** @param {any} msg */
  receive(msg) {
    if (msg.type === "started") { this.current = msg.id; this.root.dataset.live = "running"; return; }
    if (msg.type === "error") {
      if (msg.id !== undefined && msg.id !== this.current) return;
      this.out.textContent = msg.error;
      this.running = false;
      this.button.textContent = t("Live analysis");
      this.root.dataset.live = "refused";
      return;
    }
    if (msg.id !== this.current) return;  // a stopped analysis's last words
    if (msg.type === "done") {
      this.root.dataset.live = msg.reason;
      if (this.running && msg.reason === "finished") {
        this.running = false;
        this.button.textContent = t("Live analysis");
      }
      return;
    }
    if (msg.type === "info") this.show(/** @type {LiveInfo} */ (msg));
  }

  /** @param {LiveInfo} info */
  show(info) {
    const side = info.side_to_move;
    const best = info.lines[0] || info;
    this.bar.hidden = false;
    const share = whiteShare(best, side);
    /** @type {HTMLElement} */ (this.bar.firstElementChild).style.height = `${100 - share}%`;
    this.bar.title = scoreText(best, side);
    this.bar.setAttribute("aria-label", t("Evaluation: {score}", { score: scoreText(best, side) }));
    this.root.dataset.liveDepth = String(info.depth);
    const head = document.createElement("p");
    head.className = "live-head";
    head.textContent = t("Depth {depth} · {nps} nodes/s", { depth: info.depth, nps: info.nps.toLocaleString() });
    const list = document.createElement("ol");
    list.className = "live-lines";
    for (const line of info.lines) {
      const item = document.createElement("li");
      item.className = "live-line";
      const score = document.createElement("b");
      score.textContent = scoreText(line, side);
      item.appendChild(score);
      line.pv.forEach((move, i) => {
        const b = document.createElement("button");
        b.type = "button";
        b.className = "pv-move";
        b.textContent = move;
        b.title = t("Play this line up to here");
        b.addEventListener("click", () => this.onPlay(line.pv.slice(0, i + 1)));
        item.appendChild(document.createTextNode(" "));
        item.appendChild(b);
      });
      list.appendChild(item);
    }
    this.out.replaceChildren(head, list);
  }
}
