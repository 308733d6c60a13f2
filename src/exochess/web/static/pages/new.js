// The new-game form.
import { createGame } from "/static/game.js";
import { t } from "/static/i18n.js";
const form = document.getElementById("newgame");
const variantSelect = document.getElementById("variant");
const showNote = () => {
  for (const n of document.querySelectorAll(".variant-note")) n.hidden = n.dataset.variant !== variantSelect.value;
};
variantSelect.addEventListener("change", showNote);
showNote();
// the Level menu means something only against the computer
const level = document.getElementById("level");
const syncLevel = () => { level.disabled = form.elements.opponent.value !== "computer"; };
for (const radio of form.querySelectorAll("input[name=opponent]")) radio.addEventListener("change", syncLevel);
syncLevel();
// The time control: "-", "M+S" or "Nd" (the server's one text form, web/game/timecontrol.py).
const tcKind = () => form.querySelector("input[name=tc_kind]:checked").value;
function timeControl() {
  const kind = tcKind();
  if (kind === "realtime") return `${document.getElementById("tc-minutes").value}+${document.getElementById("tc-increment").value}`;
  if (kind === "correspondence") return `${document.getElementById("tc-days").value}d`;
  return "-";
}
function showTimeControl() {
  const kind = tcKind();
  document.querySelector(".tc-custom").hidden = kind !== "realtime";
  document.getElementById("tc-presets").hidden = kind !== "realtime";
  document.querySelector(".tc-days").hidden = kind !== "correspondence";
  const tc = timeControl();
  for (const b of document.querySelectorAll("#tc-presets button")) b.classList.toggle("chosen", b.dataset.tc === tc);
  document.getElementById("tc-summary").textContent =
    kind === "none" ? t("No clock.") : kind === "correspondence" ? t("Each move within {days} day(s).", { days: tc.slice(0, -1) })
      : t("Clock: {tc}.", { tc });
}
for (const b of document.querySelectorAll("#tc-presets button")) {
  b.addEventListener("click", () => {
    const [m, s] = b.dataset.tc.split("+");
    document.getElementById("tc-minutes").value = m;
    document.getElementById("tc-increment").value = s;
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
  const body = { variant: fd.get("variant"), opponent: fd.get("opponent"), color: fd.get("color"), time_control: timeControl() };
  if (body.opponent === "computer") body.level = parseInt(fd.get("level"), 10);
  const fen = (fd.get("fen") || "").trim();
  if (fen) body.fen = fen;
  try {
    const url = await createGame(body);
    location.href = url;
  } catch (err) {
    document.getElementById("error").textContent = err.message;
  }
});
