// @ts-check
// The header's account menu: "Log out" posts to the API, then reloads the page signed out.
import { postJSON } from "/static/api.js";

const menu = /** @type {HTMLDetailsElement | null} */ (document.getElementById("usermenu"));
if (menu) {
  // a click anywhere else, or Escape, closes the open menu
  document.addEventListener("click", (e) => { if (!menu.contains(/** @type {Node | null} */ (e.target))) menu.open = false; });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") menu.open = false; });
}

const button = document.getElementById("logout");
if (button) {
  button.addEventListener("click", async () => {
    await postJSON("/api/account/logout").catch(() => null);
    location.assign("/");
  });
}
