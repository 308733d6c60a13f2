// Sign-up, log-in and account settings forms: each posts JSON to /api/account/..., shows the
// server's message on failure. Signing up or in hands the server this browser's seats (the
// secrets of the games played here anonymously) so that those games become the account's.
import { postJSON } from "/static/api.js";

const SEAT_PREFIX = "exochess:seat:";

function browserSeats() {
  const seats = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(SEAT_PREFIX)) continue;
    try {
      const seat = JSON.parse(localStorage.getItem(key));
      if (seat && typeof seat.secret === "string") seats.push({ game: key.slice(SEAT_PREFIX.length), secret: seat.secret });
    } catch { /* a value this page did not write */ }
  }
  return seats.slice(0, 200);
}

function wire(form, errorBox, send) {
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    errorBox.textContent = "";
    const button = form.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      await send(new FormData(form));
    } catch (err) {
      errorBox.textContent = err.message;
    } finally {
      button.disabled = false;
    }
  });
}

const after = () => new URLSearchParams(location.search).get("next") || "/";
const safeNext = () => { const n = after(); return n.startsWith("/") && !n.startsWith("//") ? n : "/"; };

for (const id of ["signup-form", "login-form"]) {
  const form = document.getElementById(id);
  wire(form, document.getElementById("error"), async (data) => {
    await postJSON(`/api/account/${form.dataset.action}`, {
      name: data.get("name"), password: data.get("password"), claim: browserSeats(),
    });
    location.assign(safeNext());
  });
}

wire(document.getElementById("password-form"), document.getElementById("password-error"), async (data) => {
  await postJSON("/api/account/password", { old: data.get("old"), new: data.get("new") });
  document.getElementById("password-form").reset();
  document.getElementById("password-ok").hidden = false;
});

wire(document.getElementById("delete-form"), document.getElementById("delete-error"), async (data) => {
  await postJSON("/api/account/delete", { password: data.get("password") });
  location.assign("/");
});
