// @ts-check
// /tournaments: countdowns to each event's start, and the form that creates one.
import { postJSON } from "/static/api.js";
import { countdown } from "/static/tournamentclock.js";

/** Refresh every countdown of the page (upcoming: time to the start). */
function tick() {
  for (const el of document.querySelectorAll("time.countdown")) {
    const time = /** @type {HTMLElement} */ (el);
    time.textContent = countdown(Number(time.dataset.at), time.dataset.status || "");
  }
}
tick();
setInterval(tick, 1000);

const form = /** @type {HTMLFormElement | null} */ (document.getElementById("tournament-form"));
if (form) {
  const kind = /** @type {HTMLSelectElement} */ (form.elements.namedItem("kind"));
  const showKind = () => {
    for (const el of form.querySelectorAll("[data-for]")) {
      /** @type {HTMLElement} */ (el).hidden = /** @type {HTMLElement} */ (el).dataset.for !== kind.value;
    }
  };
  kind.addEventListener("change", showKind);
  showKind();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const body = {
      name: String(data.get("name") || ""),
      variant: String(data.get("variant")),
      kind: kind.value,
      time_control: String(data.get("time_control")),
      starts_in: Number(data.get("starts_in")),
      rated: data.get("rated") !== null,
      private: data.get("private") !== null,
      bots_allowed: data.get("bots_allowed") !== null,
      ...(kind.value === "arena" ? { minutes: Number(data.get("minutes")) } : { rounds: Number(data.get("rounds")) }),
    };
    const error = /** @type {HTMLElement} */ (document.getElementById("tournament-error"));
    try {
      const made = await postJSON("/api/tournaments", body);
      window.location.href = `/tournaments/${made.id}`;
    } catch (e) {
      error.textContent = e instanceof Error ? e.message : String(e);
    }
  });
}
