// @ts-check
// The game page's clocks, abort and claim buttons, low-time sound and turn notifications.
import { t } from "/static/i18n.js";
import { soundOn } from "/static/sound.js";
//
// The clocks are the server's (docs/web.md, "Clocks"): each state carries both times as they
// stood at `since` and the running side's `deadline`, in the server's time (ms since 1970).
// This only displays them, ticking locally between states. The server's time is estimated from
// the websocket's pings (the pong carries `now`), which also measure the lag a move reports.

const NOTIFY_KEY = "exochess:notify-turn";
const RED_MS = 10_000;
const PING_EVERY_MS = 5000;
const SAMPLES = 6;

const other = (/** @type {string} */ color) => (color === "white" ? "black" : "white");
const title = (/** @type {string} */ color) => (color === "white" ? t("White") : t("Black"));

// m:ss, with tenths under ten seconds and hours over one (like lichess).
/** @param {number} ms @returns {string} */
export function formatClock(ms) {
  const left = Math.max(0, ms);
  if (left < RED_MS) return `0:0${Math.floor(left / 1000)}.${Math.floor((left % 1000) / 100)}`;
  const s = Math.floor(left / 1000);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

// Correspondence: "2 days 3 h", "5 h 12 min", "12 min".
/** @param {number} ms @returns {string} */
export function formatDuration(ms) {
  const min = Math.max(0, Math.floor(ms / 60_000));
  const d = Math.floor(min / 1440), h = Math.floor((min % 1440) / 60), m = min % 60;
  const days = d > 1 ? t("{count} days", { count: d }) : t("1 day");
  if (d) return h ? `${days} ${h} h` : days;
  if (h) return `${h} h${m ? ` ${m} min` : ""}`;
  if (min) return `${m} min`;
  return `${Math.max(0, Math.ceil(ms / 1000))} s`;
}

export class ClockView {
  /**
   * @param {any} root the game page's element (its clocks are found by class)
   * @param {import("/static/game.js").GamePage} page
   */
  constructor(root, page) {
    this.root = root;
    this.page = page;
    this.offset = 0;  // server time minus local time
    /** @type {[number, number][]} */
    this.samples = [];  // recent [round trip, offset] pairs
    this.pingRef = 0;
    this.pings = new Map();
    /** @type {GameStateJson | null} */
    this.state = null;
    /** @type {string | null} */
    this.me = null;
    /** @type {string | null} */
    this.beeped = null;
    this.audio = null;
    this.turnKey = null;
    this.$ = (/** @type {string} */ sel) => root.querySelector(sel);
    const notify = this.$("#notify-turn");
    notify.checked = localStorage.getItem(NOTIFY_KEY) === "on" && window.Notification && Notification.permission === "granted";
    notify.addEventListener("change", async () => {
      if (notify.checked && window.Notification && Notification.permission !== "granted") {
        notify.checked = (await Notification.requestPermission()) === "granted";
      }
      localStorage.setItem(NOTIFY_KEY, notify.checked ? "on" : "off");
    });
    this.$("#abort").addEventListener("click", () => page.action("abort", {}));
    this.$("#claim").addEventListener("click", () => page.action("claim", {}));
    setInterval(() => this.tick(), 100);
    setInterval(() => this.ping(), PING_EVERY_MS);
  }

  serverNow() { return Date.now() + this.offset; }

  // Half the best recent round trip: what a move reports as its lag (the server credits a bounded part).
  lagMs() {
    if (!this.samples.length) return 0;
    return Math.round(Math.min(...this.samples.map(([rtt]) => rtt)) / 2);
  }

  ping() {
    const conn = this.page.conn;
    if (!conn || !conn.open) return;
    const ref = `clock-${++this.pingRef}`;
    this.pings.set(ref, Date.now());
    conn.send({ type: "ping", ref });
    if (this.pings.size > SAMPLES) this.pings.delete(this.pings.keys().next().value);  // lost ones
  }

  onOpen() { this.ping(); }

  // Every websocket message passes here first; only pongs and presence concern the clocks.
  /** @param {WsMessage} msg */
  onMessage(msg) {
    if (msg.type === "pong" && this.pings.has(msg.ref) && typeof msg.now === "number") {
      const sent = this.pings.get(msg.ref), back = Date.now();
      this.pings.delete(msg.ref);
      this.samples.push([back - sent, msg.now - (sent + back) / 2]);
      if (this.samples.length > SAMPLES) this.samples.shift();
      // the offset of the quickest round trip is the least skewed by one-way delays
      this.offset = this.samples.reduce((a, b) => (b[0] < a[0] ? b : a))[1];
    }
  }

  /**
   * @param {GameStateJson} state
   * @param {string | null} me the seat this page holds
   */
  render(state, me) {
    this.state = state;
    this.me = me;
    const c = state.clock;
    this.root.hidden = !c;
    if (!c) return;
    this.root.dataset.running = c.running || "";
    const bottom = me || "white";
    this.$(".clock.bottom").dataset.color = bottom;
    this.$(".clock.top").dataset.color = other(bottom);
    for (const el of this.root.querySelectorAll(".clock")) el.querySelector(".clock-name").textContent = title(el.dataset.color);
    const active = state.status === "active";
    this.$("#abort").hidden = !(me && active && state.ply < 2);
    // the notification is for correspondence (the page's sound switch covers the low-time beep)
    this.$("#notify-turn").closest("label").hidden = !(me && state.time_control.kind === "correspondence");
    this.notifyTurn(state, me);
    this.tick();
  }

  // The time each side has now, as the server counts it: the side whose deadline runs counts
  // down to it (in correspondence before the first moves too), the other shows its stored time.
  /** @param {string} color */
  left(color) {
    const s = /** @type {GameStateJson} */ (this.state), c = s.clock;  // rendered first
    const base = color === "white" ? c.white_ms : c.black_ms;
    if (s.status !== "active" || !c.deadline) return base;
    const counting = c.running === color || (s.time_control.kind === "correspondence" && c.to_move === color);
    if (!counting) return base;
    const left = c.deadline - this.serverNow();
    // A running clock never shows more than the side had when it started: the estimate of the
    // server's time can lag it by a few ms (a fresh-clone test saw 3:00.014 on a 3:00 clock).
    return c.running === color ? Math.min(base, left) : left;
  }

  tick() {
    const s = this.state;
    if (!s || !s.clock) return;
    const c = s.clock, now = this.serverNow();
    const correspondence = s.time_control.kind === "correspondence";
    for (const el of this.root.querySelectorAll(".clock")) {
      const color = el.dataset.color;
      const ms = this.left(color);
      const running = s.status === "active" && c.running === color;
      el.classList.toggle("running", running);
      el.classList.toggle("low", !correspondence && running && ms < RED_MS);
      el.querySelector(".clock-time").textContent = correspondence ? formatDuration(ms) : formatClock(ms);
      this.root.dataset[`${color}Ms`] = String(Math.max(0, Math.round(ms)));
    }
    const note = this.$("#clock-note");
    if (s.status === "active" && c.expiry === "abort" && c.deadline) {
      const time = formatDuration(c.deadline - now);
      note.textContent = s.players[c.to_move].kind === "engine"
        ? t("The computer must make a first move within {time}, or the game is aborted.", { time })
        : t("{side} must make a first move within {time}, or the game is aborted.", { side: title(c.to_move), time });
    } else if (s.status === "active" && correspondence) {
      note.textContent = t("{side} has {time} for this move.", { side: title(c.to_move), time: formatDuration(c.deadline - now) });
    } else note.textContent = "";
    this.lowTime(s, now);
    this.claim(s, now);
  }

  // A short beep when your own running clock drops under ten seconds (once per move).
  /** @param {GameStateJson} s @param {number} now */
  lowTime(s, now) {
    const c = s.clock;
    if (!this.me || s.status !== "active" || c.running !== this.me || s.time_control.kind !== "realtime") return;
    const key = `${s.ply}`;
    if (c.deadline - now >= RED_MS || this.beeped === key) return;
    this.beeped = key;
    if (!soundOn()) return;
    try {
      this.audio = this.audio || new AudioContext();
      const osc = this.audio.createOscillator(), gain = this.audio.createGain();
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.15, this.audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.001, this.audio.currentTime + 0.25);
      osc.connect(gain).connect(this.audio.destination);
      osc.start();
      osc.stop(this.audio.currentTime + 0.25);
    } catch { /* no audio on this browser: the red clock is the warning */ }
    this.root.dataset.beeped = key;
  }

  // "Claim victory" once the opponent has been gone past the absence limit (real time only).
  /** @param {GameStateJson} s @param {number} now */
  claim(s, now) {
    const button = this.$("#claim"), info = this.$("#claim-note");
    const me = this.me, opp = /** @type {string} */ (me && other(me));
    const gone = opp && s.absent_since && s.absent_since[opp];
    const can = me && s.status === "active" && s.time_control.kind === "realtime" && s.ply >= 2 &&
      s.players[opp].kind === "human" && !s.online[opp] && gone;
    if (!can) { button.hidden = true; info.textContent = ""; return; }
    const wait = gone + s.clock.absence_ms - now;
    button.hidden = false;
    button.disabled = wait > 0;
    info.textContent = wait > 0
      ? t("Your opponent left the game. You can claim the win in {seconds} s.", { seconds: Math.ceil(wait / 1000) })
      : t("Your opponent left the game. You can claim the win.");
  }

  // A browser notification when it becomes your turn while the tab is in the background (opt-in).
  /** @param {GameStateJson} state @param {string | null} me */
  notifyTurn(state, me) {
    const mine = me && state.status === "active" && state.turn === me;
    const key = `${state.id}:${state.ply}`;
    const fresh = mine && this.turnKey !== null && this.turnKey !== key;
    this.turnKey = mine ? key : (this.turnKey === null ? "" : this.turnKey);
    if (!fresh || !document.hidden || !this.$("#notify-turn").checked) return;
    if (!window.Notification || Notification.permission !== "granted") return;
    const body = state.moves.length
      ? t("Your opponent has moved ({move}).", { move: state.moves[state.moves.length - 1].text })
      : t("Your opponent has moved.");
    new Notification(t("exochess: your move"), { body, tag: state.id });
  }
}
