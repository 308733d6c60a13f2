// @ts-check
// A websocket that comes back: reconnects with a growing delay after a drop, at once when the
// browser says it is online again or the page becomes visible, and tells its owner when it is
// up (onOpen) or down (onDown). The owner decides what a drop means for its page.
export class Reconnector {
  /**
   * @param {string} url
   * @param {{onOpen: () => void, onMessage: (data: WsMessage) => void, onDown: (event: CloseEvent) => void}} handlers
   */
  constructor(url, handlers) {
    this.url = url;
    this.handlers = handlers;
    /** @type {WebSocket | null} */
    this.ws = null;
    this.retry = 500;
    /** @type {ReturnType<typeof setTimeout> | null} */
    this.timer = null;
    this.capped = false;   // the server's cap on connections refused us (close code 4429)
    window.addEventListener("online", () => this.now());
    document.addEventListener("visibilitychange", () => { if (!document.hidden) this.now(); });
    // a laptop that sleeps or a network that vanishes may not close the socket at once
    window.addEventListener("offline", () => { if (this.ws) this.ws.close(); });
  }

  get open() { return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN); }

  start() {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.retry = 500;
      this.capped = false;
      this.handlers.onOpen();
    });
    ws.addEventListener("message", (e) => { if (this.ws === ws) this.handlers.onMessage(JSON.parse(e.data)); });
    ws.addEventListener("close", (e) => {
      if (this.ws !== ws) return;
      this.capped = e.code === 4429;
      this.handlers.onDown(e);
      this.timer = setTimeout(() => this.start(), this.retry);
      this.retry = Math.min(this.retry * 2, 5000);
    });
  }

  // Try again now rather than at the end of the delay (only when down).
  now() {
    if (this.ws && this.ws.readyState !== WebSocket.CLOSED) return;
    this.retry = 500;
    this.start();
  }

  /** @param {WsMessage} message */
  send(message) {
    if (!this.open || !this.ws) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }
}
