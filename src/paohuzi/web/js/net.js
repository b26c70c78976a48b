// The game websocket (docs/protocol.md §3) with automatic reconnection.
//
// status: "connecting" → "online"; on a drop "offline" then "connecting" again with a growing delay
// (0.5 s … 8 s); "replaced" when another tab of the same player took over (close 4000) — no reconnect
// until the player asks; "unauthorized" for a bad token (4001).

import { getToken } from "./api.js";

export class GameSocket {
  constructor({ onFrame, onStatus }) {
    this.onFrame = onFrame;
    this.onStatus = onStatus;
    this.ws = null;
    this.status = "idle";
    this.retries = 0;
    this.retryTimer = null;
    this.pingTimer = null;
    this.nextId = 1;
    this.wanted = false;
    this.lastFrameAt = 0;
    window.addEventListener("online", () => this.kick());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.kick();
    });
  }

  setStatus(status) {
    if (status === this.status) return;
    this.status = status;
    this.onStatus(status);
  }

  start() {
    this.wanted = true;
    this.open();
  }

  stop() {
    this.wanted = false;
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    if (this.ws) {
      const ws = this.ws;
      this.ws = null;
      ws.close(1000);
    }
    this.setStatus("idle");
  }

  /** Reconnect now if we are waiting to (the network came back, the tab became visible). */
  kick() {
    if (!this.wanted || this.status === "replaced") return;
    if (!this.ws || this.ws.readyState > 1) {
      clearTimeout(this.retryTimer);
      this.open();
    }
  }

  /** Take the seat back after another tab took it (close 4000). */
  reclaim() {
    this.wanted = true;
    this.retries = 0;
    this.open();
  }

  open() {
    clearTimeout(this.retryTimer);
    const token = getToken();
    if (!token) return;
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    this.setStatus("connecting");
    let ws;
    try {
      ws = new WebSocket(url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      ws.send(JSON.stringify({ type: "hello", token }));
    };
    ws.onmessage = (msg) => {
      if (ws !== this.ws) return;
      let frame;
      try {
        frame = JSON.parse(msg.data);
      } catch {
        return;
      }
      this.lastFrameAt = Date.now();
      if (frame.type === "welcome") {
        this.retries = 0;
        this.setStatus("online");
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.send({ type: "ping" }), 15000);
      }
      this.onFrame(frame);
    };
    ws.onclose = (ev) => {
      if (ws !== this.ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      if (ev.code === 4000) {
        this.wanted = false;
        this.setStatus("replaced");
        return;
      }
      if (ev.code === 4001) {
        this.wanted = false;
        this.setStatus("unauthorized");
        return;
      }
      if (!this.wanted) return;
      this.setStatus("offline");
      this.scheduleRetry();
    };
    ws.onerror = () => {
      /* onclose follows */
    };
  }

  scheduleRetry() {
    if (!this.wanted) return;
    const delay = Math.min(8000, 500 * 2 ** Math.min(this.retries, 4));
    this.retries += 1;
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.open(), delay);
  }

  /** Send a frame; returns its id, or null when not connected. */
  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN || this.status !== "online") return null;
    const id = frame.id ?? this.nextId++;
    this.ws.send(JSON.stringify({ ...frame, id }));
    return id;
  }
}
