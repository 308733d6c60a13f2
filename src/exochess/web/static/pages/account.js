// @ts-check
// Sign-up, log-in and account settings forms: each posts JSON to /api/account/..., shows the
// server's message on failure. Signing up or in hands the server this browser's seats (the
// secrets of the games played here anonymously) so that those games become the account's.
import { getJSON, postJSON } from "/static/api.js";
import { t } from "/static/i18n.js";

const SEAT_PREFIX = "exochess:seat:";

/** The seats of the games this browser played anonymously (at most 200).
 * @returns {{game: string, secret: string}[]} */
function browserSeats() {
  const seats = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key || !key.startsWith(SEAT_PREFIX)) continue;
    try {
      const seat = JSON.parse(localStorage.getItem(key) || "null");
      if (seat && typeof seat.secret === "string") seats.push({ game: key.slice(SEAT_PREFIX.length), secret: seat.secret });
    } catch { /* a value this page did not write */ }
  }
  return seats.slice(0, 200);
}

/**
 * @param {HTMLFormElement | null} form
 * @param {HTMLElement} errorBox where the server's message goes on failure
 * @param {(data: FormData) => Promise<void>} send
 */
function wire(form, errorBox, send) {
  if (!form) return;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    errorBox.textContent = "";
    const button = /** @type {HTMLButtonElement} */ (form.querySelector("button[type=submit]"));
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

/** @param {string} id */
const form = (id) => /** @type {HTMLFormElement | null} */ (document.getElementById(id));
/** @param {string} id */
const box = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

for (const id of ["signup-form", "login-form"]) {
  const accountForm = form(id);
  wire(accountForm, box("error"), async (data) => {
    await postJSON(`/api/account/${accountForm?.dataset.action}`, {
      name: data.get("name"), password: data.get("password"), claim: browserSeats(),
    });
    location.assign(safeNext());
  });
}

wire(form("password-form"), box("password-error"), async (data) => {
  await postJSON("/api/account/password", { old: data.get("old"), new: data.get("new") });
  form("password-form")?.reset();
  box("password-ok").hidden = false;
});

wire(form("delete-form"), box("delete-error"), async (data) => {
  await postJSON("/api/account/delete", { password: data.get("password") });
  location.assign("/");
});

/**
 * @typedef {{id: number, description: string, scopes: string[], created: string, last_used: string | null}} TokenInfo
 */

/** The account's tokens, each with its Revoke button (the tokens themselves are never shown again). */
async function showTokens() {
  const list = document.getElementById("token-list");
  if (!list) return;
  /** @type {{tokens: TokenInfo[]}} */
  const data = await getJSON("/api/account/tokens");
  list.replaceChildren();
  for (const token of data.tokens) {
    const li = document.createElement("li");
    li.dataset.token = String(token.id);
    const text = document.createElement("span");
    text.textContent = `${token.description} (${token.scopes.join(", ")})`;
    const revoke = document.createElement("button");
    revoke.type = "button";
    revoke.className = "revoke";
    revoke.textContent = t("Revoke");
    revoke.addEventListener("click", async () => {
      revoke.disabled = true;
      try {
        await postJSON(`/api/account/tokens/${token.id}/revoke`, {});
        await showTokens();
      } catch (err) {
        box("token-error").textContent = err.message;
        revoke.disabled = false;
      }
    });
    li.append(text, " ", revoke);
    list.append(li);
  }
  box("no-tokens").hidden = data.tokens.length > 0;
}

wire(form("token-form"), box("token-error"), async (data) => {
  const made = await postJSON("/api/account/tokens", {
    description: data.get("description"), scopes: data.getAll("scopes"),
  });
  box("token-text").textContent = made.token;
  box("token-new").hidden = false;
  form("token-form")?.reset();
  await showTokens();
});

if (form("token-form")) showTokens().catch((err) => { box("token-error").textContent = err.message; });
