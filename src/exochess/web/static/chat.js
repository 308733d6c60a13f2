// @ts-check
// The game's chat: lines arrive on the game page's websocket ({"type": "chat", "lines": [...]});
// a player writes with {"type": "chat", "text": ...}; spectators read only.  Each line is shown
// as text, never as HTML.  A player may mute the other (kept in this browser, per game).
const MUTE_KEY = (/** @type {string} */ id) => `exochess:mute:${id}`;
const REF = "chat";

export class ChatBox {
  /**
   * @param {import("/static/game.js").GamePage} page
   * @param {HTMLElement} root
   * @param {{[key: string]: string}} texts
   */
  constructor(page, root, texts) {
    this.page = page;
    this.root = root;
    this.texts = texts;
    /** @type {ChatLine[]} */
    this.lines = [];
    /** @type {string | null} */
    this.you = null;
    this.muted = localStorage.getItem(MUTE_KEY(page.id)) === "1";
    this.$("#chat-form").addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); this.send(); });
    this.$("#chat-mute").addEventListener("click", () => this.toggleMute());
    page.listeners.push((/** @type {WsMessage} */ msg) => this.onMessage(msg));
    this.render();
  }

  /**
   * An element of the chat box (its markup: templates/chat.html).
   * @param {string} sel
   * @returns {HTMLInputElement}
   */
  $(sel) { return /** @type {HTMLInputElement} */ (this.root.querySelector(sel)); }

  /**
   * Returns true for the messages that are the chat's alone.
   * @param {WsMessage} msg
   */
  onMessage(msg) {
    if (msg.type === "chat") {
      this.lines = msg.history ? msg.lines : this.lines.concat(msg.lines);
      this.render();
      return true;
    }
    if (msg.type === "hello") {
      this.you = msg.you;
      this.render();
      return false;  // the game page needs it too
    }
    if (msg.ref === REF && (msg.type === "ack" || msg.type === "error")) {
      this.$("#chat-error").textContent = msg.type === "error" ? msg.error : "";
      return true;
    }
    if (msg.type === "state") this.render();
    return false;
  }

  send() {
    const input = this.$("#chat-input");
    const text = input.value.trim();
    if (!text) return;
    // the page's connection (static/connection.js) says whether the line could be sent
    if (!this.page.conn || !this.page.conn.send({ type: "chat", text, ref: REF })) {
      this.$("#chat-error").textContent = this.texts.not_connected;
      return;
    }
    input.value = "";
  }

  toggleMute() {
    this.muted = !this.muted;
    if (this.muted) localStorage.setItem(MUTE_KEY(this.page.id), "1");
    else localStorage.removeItem(MUTE_KEY(this.page.id));
    this.render();
  }

  render() {
    const players = this.page.state.players;
    // a chat between two people: games against the computer have none
    const human = players.white.kind === "human" && players.black.kind === "human";
    this.root.hidden = !human;
    if (!human) return;
    const seated = this.you === "white" || this.you === "black";
    this.$("#chat-form").hidden = !seated;
    this.$("#chat-spectator").hidden = seated;
    const mute = this.$("#chat-mute");
    mute.hidden = !seated;
    mute.textContent = this.muted ? this.texts.unmute : this.texts.mute;
    const box = this.$("#chat-lines");
    const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    box.replaceChildren();
    const shown = this.lines.filter((l) => !(seated && this.muted && l.color !== this.you));
    for (const line of shown) {
      const div = document.createElement("div");
      div.className = `line ${line.color}`;
      const who = document.createElement("span");
      who.className = "who";
      who.textContent = line.name || this.texts[line.color];
      const text = document.createElement("span");
      text.className = "text";
      text.textContent = line.text;
      div.append(who, " ", text);
      box.appendChild(div);
    }
    if (seated && this.muted) {
      const note = document.createElement("div");
      note.className = "muted";
      note.textContent = this.texts.muted;
      box.appendChild(note);
    } else if (!shown.length) {
      const note = document.createElement("div");
      note.className = "muted";
      note.textContent = this.texts.empty;
      box.appendChild(note);
    }
    if (atBottom) box.scrollTop = box.scrollHeight;
  }
}
