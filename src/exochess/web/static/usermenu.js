// The header's account menu: "Log out" posts to the API, then reloads the page signed out.
import { postJSON } from "/static/api.js";

const button = document.getElementById("logout");
if (button) {
  button.addEventListener("click", async () => {
    await postJSON("/api/account/logout").catch(() => null);
    location.assign("/");
  });
}
