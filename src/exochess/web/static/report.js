// @ts-check
// The computer's report of a finished game, under the board (docs/analysis.md): a button to ask
// for it, its progress while the engine works (polled), then White's winning chances as a graph
// (a click jumps to that move), each player's accuracy and mistakes, and the marked moves with
// the engine's better move and line. The report is the server's, the same for every viewer.
import { getJSON, postJSON } from "/static/api.js";
import { sideToMove } from "/static/board.js";
import { t } from "/static/i18n.js";

const POLL_MS = 1000;
const W = 600, H = 120;  // the graph's own units (the SVG scales to the page's width)

/** @typedef {{ply: number, move: string, color: string, mark: string | null, loss: number, accuracy: number, best: string | null, line: string[]}} ReviewedMove */
/** @typedef {{accuracy: number | null, inaccuracies: number, mistakes: number, blunders: number}} PlayerFigures */
/** @typedef {{white_percent: number[], moves: ReviewedMove[], players: {white: PlayerFigures, black: PlayerFigures}}} Judged */
/** @typedef {{status: string, done: number, total: number, error: string | null, report: Judged | null}} ReportReply */

/** @type {{[mark: string]: string}} */
const MARK_CLASS = { "??": "blunder", "?": "mistake", "?!": "inaccuracy" };

/**
 * An SVG element, made in its namespace.
 * @param {string} name
 * @param {{[attribute: string]: string | number}} attrs
 * @returns {SVGElement}
 */
function svgEl(name, attrs) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", name);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

export class ReportView {
  /**
   * @param {HTMLElement} root the report's section (#report)
   * @param {any} page the GamePage: its state, shownPly(), show(ply), moveMarks, render()
   */
  constructor(root, page) {
    this.root = root;
    this.page = page;
    /** @type {ReportReply | null} */
    this.data = null;
    this.timer = 0;
    this.loading = false;
    this.askButton = /** @type {HTMLButtonElement} */ (root.querySelector("#report-ask"));
    this.askButton.addEventListener("click", () => this.ask());
    this.shownAt = -1;
    this.$("#report-graph").addEventListener("click", (/** @type {MouseEvent} */ e) => this.onGraphClick(e));
  }

  /** @param {string} sel @returns {any} */
  $(sel) { return this.root.querySelector(sel); }

  // Called after every render of the page: shown once the game is over, read the first time.
  update() {
    const s = this.page.state;
    const over = s.status !== "active" && s.moves.length > 0;
    this.root.hidden = !over;
    if (!over) return;
    if (this.data === null && !this.loading) { this.load(); return; }
    const ply = this.page.shownPly();
    if (ply !== this.shownAt) { this.shownAt = ply; this.placeCursor(); }
  }

  async load() {
    this.loading = true;
    try { this.show(await getJSON(`/api/games/${this.page.id}/report`)); }
    catch (err) { this.error(err.message); }
    finally { this.loading = false; }
  }

  async ask() {
    this.error("");
    this.askButton.disabled = true;
    try { this.show(await postJSON(`/api/games/${this.page.id}/report`, {})); }
    catch (err) { this.error(err.message); this.askButton.disabled = false; }
  }

  /** @param {string} text */
  error(text) { this.$("#report-error").textContent = text || ""; }

  /** @param {ReportReply} data */
  show(data) {
    this.data = data;
    clearTimeout(this.timer);
    const waiting = data.status === "queued" || data.status === "running";
    this.root.dataset.status = data.status;
    this.askButton.hidden = !(data.status === "none" || data.status === "failed");
    this.askButton.disabled = false;
    const progress = /** @type {HTMLProgressElement} */ (this.$("#report-progress"));
    progress.hidden = !waiting;
    progress.max = data.total;
    progress.value = data.done;
    const note = this.$("#report-note");
    if (data.status === "queued" && data.done === 0) note.textContent = t("Waiting for the engine…");
    else if (waiting) note.textContent = t("Analysing: {done} of {total} positions", { done: data.done, total: data.total });
    else if (data.status === "failed") note.textContent = t("The analysis failed: {reason}", { reason: data.error || "" });
    else note.textContent = "";
    if (waiting) this.timer = window.setTimeout(() => this.load(), POLL_MS);
    const report = data.status === "done" ? data.report : null;
    this.$("#report-body").hidden = !report;
    this.page.moveMarks = {};
    if (!report) return;
    for (const m of report.moves) if (m.mark) this.page.moveMarks[m.ply] = m.mark;
    this.drawGraph(report);
    this.drawPlayers(report);
    this.drawMarks(report);
    this.shownAt = -1;
    this.page.render();
  }

  /** @param {Judged} report */
  drawGraph(report) {
    const svg = this.$("#report-graph");
    svg.replaceChildren();
    const pts = report.white_percent;
    const n = Math.max(1, pts.length - 1);
    const x = (/** @type {number} */ i) => (i / n) * W, y = (/** @type {number} */ p) => H - (p / 100) * H;
    svg.appendChild(svgEl("rect", { x: 0, y: 0, width: W, height: H, class: "graph-bg" }));
    const line = pts.map((p, i) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(" ");
    svg.appendChild(svgEl("polygon", { points: `0,${H} ${line} ${W},${H}`, class: "graph-white" }));
    svg.appendChild(svgEl("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "graph-mid" }));
    svg.appendChild(svgEl("polyline", { points: line, class: "graph-line" }));
    for (const m of report.moves) {
      if (!m.mark) continue;
      const dot = svgEl("circle", { cx: x(m.ply + 1), cy: y(pts[m.ply + 1]), r: 4, class: `graph-mark ${MARK_CLASS[m.mark]}` });
      dot.dataset.ply = String(m.ply + 1);
      svg.appendChild(dot);
    }
    this.cursor = svgEl("line", { x1: 0, y1: 0, x2: 0, y2: H, class: "graph-cursor" });
    svg.appendChild(this.cursor);
    this.graphX = x;
  }

  // The graph's vertical line at the position the board shows.
  placeCursor() {
    if (!this.cursor || !this.graphX) return;
    const at = this.graphX(this.page.shownPly()).toFixed(1);
    this.cursor.setAttribute("x1", at);
    this.cursor.setAttribute("x2", at);
  }

  // A click on the graph shows the position nearest to it (the point at that move).
  /** @param {MouseEvent} event */
  onGraphClick(event) {
    const data = this.data;
    if (!data || !data.report) return;
    const svg = /** @type {SVGSVGElement} */ (this.$("#report-graph"));
    const box = svg.getBoundingClientRect();
    const n = Math.max(1, data.report.white_percent.length - 1);
    const ply = Math.round(((event.clientX - box.left) / box.width) * n);
    this.page.show(Math.max(0, Math.min(n, ply)));
  }

  /** @param {Judged} report */
  drawPlayers(report) {
    const body = this.$("#report-players");
    body.replaceChildren();
    for (const color of /** @type {const} */ (["white", "black"])) {
      const p = report.players[color];
      const row = document.createElement("tr");
      row.dataset.color = color;
      const cells = [color === "white" ? t("White") : t("Black"),
        p.accuracy === null ? "–" : `${p.accuracy.toFixed(1)} %`, String(p.inaccuracies), String(p.mistakes), String(p.blunders)];
      for (const text of cells) {
        const td = document.createElement("td");
        td.textContent = text;
        row.appendChild(td);
      }
      body.appendChild(row);
    }
  }

  /** @param {Judged} report */
  drawMarks(report) {
    const list = this.$("#report-marks");
    list.replaceChildren();
    const blackFirst = sideToMove(this.page.state.start_fen) === "black";
    for (const m of report.moves) {
      if (!m.mark) continue;
      const li = document.createElement("li");
      li.className = `mark-${MARK_CLASS[m.mark]}`;
      li.dataset.ply = String(m.ply + 1);
      const idx = m.ply + (blackFirst ? 1 : 0);
      const number = `${Math.floor(idx / 2) + 1}${idx % 2 ? "…" : "."}`;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "linkish";
      button.textContent = `${number} ${m.move}${m.mark}`;
      button.addEventListener("click", () => this.page.show(m.ply + 1));
      li.appendChild(button);
      /** @type {{[mark: string]: string}} */
      const names = { "??": t("Blunder"), "?": t("Mistake"), "?!": t("Inaccuracy") };
      const words = names[m.mark] || m.mark;
      const detail = document.createElement("span");
      detail.textContent = " " + (m.best
        ? t("{kind} (−{loss} %). Better: {best}, line {line}", { kind: words, loss: m.loss, best: m.best, line: m.line.join(" ") })
        : t("{kind} (−{loss} %)", { kind: words, loss: m.loss }));
      li.appendChild(detail);
      list.appendChild(li);
    }
    if (!list.children.length) {
      const li = document.createElement("li");
      li.textContent = t("No inaccuracy, mistake or blunder.");
      list.appendChild(li);
    }
  }
}
