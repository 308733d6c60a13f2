// @ts-check
// A tournament's countdown text: time to its start, or left to play.
import { t } from "/static/i18n.js";

/**
 * "3:05" or "1:02:03" for a number of milliseconds (0 when past).
 * @param {number} ms
 * @returns {string}
 */
export function duration(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/**
 * The text beside an event: "starts in 4:59" before it starts, "running" or "finished" after.
 * @param {number} at the start, ms since 1970
 * @param {string} status created, started or finished
 * @returns {string}
 */
export function countdown(at, status) {
  if (status === "created") return t("starts in {time}", { time: duration(at - Date.now()) });
  return status === "started" ? t("running") : t("finished");
}
