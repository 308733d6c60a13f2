// @ts-check
// The bots page: challenge a bot that is online (POST /api/challenge/{name}), then wait on
// this account's event stream (GET /api/stream/event, ndjson) for the game to start (the bot
// accepted: go to the game) or for the challenge to be declined (say why).
import { postJSON } from "/static/api.js";
import { t } from "/static/i18n.js";

const status = /** @type {HTMLElement} */ (document.getElementById("bot-status"));

/**
 * The challenge's clock fields from the time select's value ("3+2", "3d", "-").
 * @param {string} value
 * @returns {{[field: string]: number}}
 */
function clockFields(value) {
  if (value === "-") return {};
  if (value.endsWith("d")) return { days: Number(value.slice(0, -1)) };
  const [minutes, increment] = value.split("+");
  return { "clock.limit": Math.round(Number(minutes) * 60), "clock.increment": Number(increment) };
}

/**
 * Read the account's event stream, handing each event to ``onEvent`` until it returns true;
 * ``onBlank`` is told of each bare line (the first one ends what the stream lists on opening).
 * @param {(event: any) => boolean} onEvent
 * @param {() => void} onBlank
 * @param {AbortSignal} signal
 */
async function followEvents(onEvent, onBlank, signal) {
  const res = await fetch("/api/stream/event", { signal });
  if (!res.ok || !res.body) throw new Error(t("The server answered with HTTP status {status}.", { status: res.status }));
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const text = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (!text) onBlank();
      else if (onEvent(JSON.parse(text))) return;
    }
  }
}

/** @param {string} bot */
async function challenge(bot) {
  const form = /** @type {HTMLFormElement} */ (document.getElementById("bot-challenge"));
  const data = new FormData(form);
  status.textContent = t("Challenging {name}…", { name: bot });
  const stop = new AbortController();
  /** @type {Set<string>} */
  const before = new Set();
  let sent = "";
  let opened = false;
  /** @type {(value?: unknown) => void} */
  let ready = () => {};
  const streamOpen = new Promise((resolve) => { ready = resolve; });
  const watching = followEvents((event) => {
    if (event.type === "gameStart") {
      const id = event.game.gameId;
      if (!opened) { before.add(id); return false; }
      if (!before.has(id) && (event.game.opponent.username || "").toLowerCase() === bot.toLowerCase()) {
        location.assign(`/game/${id}`);
        return true;
      }
    }
    if (event.type === "challengeDeclined" && event.challenge.id === sent) {
      status.textContent = t("{name} declined: {reason}", { name: bot, reason: event.challenge.declineReason });
      return true;
    }
    return false;
  }, () => { if (!opened) { opened = true; ready(); } }, stop.signal);
  // the challenge goes once the stream is open: the game's start cannot be missed
  await Promise.race([streamOpen, watching]);
  try {
    const made = await postJSON(`/api/challenge/${encodeURIComponent(bot)}`, {
      variant: data.get("variant"), rated: data.get("rated") === "on", ...clockFields(String(data.get("time"))),
    });
    sent = made.id;
    status.textContent = t("Waiting for {name} to answer…", { name: bot });
    await watching;
  } catch (err) {
    stop.abort();
    status.textContent = err.message;
  }
}

for (const button of document.querySelectorAll("button.challenge-bot")) {
  const b = /** @type {HTMLButtonElement} */ (button);
  b.addEventListener("click", () => { challenge(b.dataset.bot || ""); });
}
