// The new-game form.
import { createGame } from "/static/game.js";
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
form.addEventListener("submit", async (e) => {
  e.preventDefault();
  const fd = new FormData(form);
  const body = { variant: fd.get("variant"), opponent: fd.get("opponent"), color: fd.get("color") };
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
