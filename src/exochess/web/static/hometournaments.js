// @ts-check
// The home page's tournaments: the next events (running first), each with its countdown.
import { getJSON } from "/static/api.js";
import { countdown } from "/static/tournamentclock.js";

const box = document.getElementById("home-tournaments");
if (box) {
  getJSON("/api/tournaments").then((/** @type {{tournaments: any[]}} */ data) => {
    const next = data.tournaments.filter((e) => e.status !== "finished")
      .sort((a, b) => (a.status === b.status ? a.starts_at - b.starts_at : a.status === "started" ? -1 : 1))
      .slice(0, 4);
    if (!next.length) return;
    const list = /** @type {HTMLElement} */ (box.querySelector("ul"));
    const times = next.map((e) => {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/tournaments/${e.id}`;
      a.textContent = `${e.name} (${e.time_control})`;
      const time = document.createElement("time");
      time.className = "countdown";
      li.append(a, " ", time);
      list.append(li);
      return () => { time.textContent = countdown(e.starts_at, e.status); };
    });
    const tick = () => times.forEach((f) => f());
    tick();
    setInterval(tick, 1000);
    box.hidden = false;
  }).catch(() => {});
}
