// @ts-check
// The new-game form.
import { createGame } from "/static/game.js";
import { t } from "/static/i18n.js";
const form = /** @type {HTMLFormElement} */ (document.getElementById("newgame"));
const variantSelect = /** @type {HTMLSelectElement} */ (document.getElementById("variant"));
/** @param {string} id */
const input = (id) => /** @type {HTMLInputElement} */ (document.getElementById(id));
/** @param {string} selector */
const element = (selector) => /** @type {HTMLElement} */ (document.querySelector(selector));
const showNote = () => {
  for (const n of document.querySelectorAll(".variant-note")) if (n instanceof HTMLElement) n.hidden = n.dataset.variant !== variantSelect.value;
};
variantSelect.addEventListener("change", showNote);
showNote();
// the Level menu means something only against the computer
const level = /** @type {HTMLSelectElement} */ (document.getElementById("level"));
// each level's rating in the chosen game (engine/levels.py ELO, measured by bench/ladder.py)
/** @type {Record<string, Record<string, number | null>>} */
const levelElos = JSON.parse(level.dataset.elos || "{}");
const showElos = () => {
  const elos = levelElos[variantSelect.value] || {};
  for (const option of Array.from(level.options)) {
    const n = parseInt(option.value, 10);
    if (n < 1) continue;
    const elo = elos[String(n)];
    const text = elo == null ? String(n) : t("{level} (≈ {elo} Elo)", { level: n, elo });
    option.textContent = option.dataset.note ? `${text} (${option.dataset.note})` : text;
  }
};
variantSelect.addEventListener("change", showElos);
showElos();
const syncLevel = () => { level.disabled = /** @type {RadioNodeList} */ (form.elements.namedItem("opponent")).value !== "computer"; };
for (const radio of form.querySelectorAll("input[name=opponent]")) radio.addEventListener("change", syncLevel);
syncLevel();
// The time control: "-", "M+S" or "Nd" (the server's one text form, web/game/timecontrol.py).
const tcKind = () => /** @type {HTMLInputElement} */ (form.querySelector("input[name=tc_kind]:checked")).value;
function timeControl() {
  const kind = tcKind();
  if (kind === "realtime") return `${input("tc-minutes").value}+${input("tc-increment").value}`;
  if (kind === "correspondence") return `${input("tc-days").value}d`;
  return "-";
}
function showTimeControl() {
  const kind = tcKind();
  element(".tc-custom").hidden = kind !== "realtime";
  element("#tc-presets").hidden = kind !== "realtime";
  element(".tc-days").hidden = kind !== "correspondence";
  const tc = timeControl();
  for (const b of document.querySelectorAll("#tc-presets button")) if (b instanceof HTMLElement) b.classList.toggle("chosen", b.dataset.tc === tc);
  element("#tc-summary").textContent =
    kind === "none" ? t("No clock.") : kind === "correspondence" ? t("Each move within {days} day(s).", { days: tc.slice(0, -1) })
      : t("Clock: {tc}.", { tc });
}
for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("#tc-presets button"))) {
  b.addEventListener("click", () => {
    const [m, s] = (b.dataset.tc || "").split("+");
    input("tc-minutes").value = m;
    input("tc-increment").value = s;
    showTimeControl();
  });
}
for (const el of form.querySelectorAll("input[name=tc_kind], #tc-minutes, #tc-increment, #tc-days")) {
  el.addEventListener("change", showTimeControl);
}
showTimeControl();
form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const fd = new FormData(form);
  /** @type {Record<string, FormDataEntryValue | number | null>} */
  const body = { variant: fd.get("variant"), opponent: fd.get("opponent"), color: fd.get("color"), time_control: timeControl() };
  if (body.opponent === "computer") body.level = parseInt(String(fd.get("level")), 10);
  const fen = String(fd.get("fen") || "").trim();
  if (fen) body.fen = fen;
  try {
    const url = await createGame(body);
    location.href = url;
  } catch (err) {
    element("#error").textContent = err.message;
  }
});
