import { describe, expect, it, vi } from "vitest";
import { backoffDelay, connectPipelineSocket, pipelineSocketUrl } from "./socket.js";

class FakeSocket {
  static made = [];
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    this.sent = [];
    FakeSocket.made.push(this);
  }
  send(data) {
    this.sent.push(data);
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
}

describe("the websocket client", () => {
  it("backs off doubling up to a ceiling", () => {
    expect([0, 1, 2, 3].map((attempt) => backoffDelay(attempt))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffDelay(20)).toBe(15000);
  });

  it("builds the address from the page's location", () => {
    expect(pipelineSocketUrl(4, { protocol: "https:", host: "pw.example" })).toBe(
      "wss://pw.example/ws/pipelines/4/",
    );
    expect(pipelineSocketUrl(4, { protocol: "http:", host: "127.0.0.1:8000" })).toBe(
      "ws://127.0.0.1:8000/ws/pipelines/4/",
    );
  });

  it("passes messages on, asks for snapshots and reconnects after a drop", () => {
    vi.useFakeTimers();
    FakeSocket.made = [];
    const messages = [];
    const states = [];
    const client = connectPipelineSocket("ws://x/", {
      onMessage: (message) => messages.push(message),
      onState: (state) => states.push(state),
      WebSocketImpl: FakeSocket,
    });
    const first = FakeSocket.made[0];
    first.open();
    first.onmessage({ data: JSON.stringify({ type: "snapshot", seq: 0, run: null }) });
    client.requestSnapshot();
    expect(messages).toEqual([{ type: "snapshot", seq: 0, run: null }]);
    expect(first.sent).toEqual([JSON.stringify({ type: "snapshot_request" })]);
    first.onclose({ code: 1006 });
    vi.advanceTimersByTime(500);
    expect(FakeSocket.made).toHaveLength(2);
    expect(states).toEqual(["connecting", "open", "reconnecting", "reconnecting"]);
    client.close();
    FakeSocket.made[1].onclose?.({ code: 1000 });
    vi.advanceTimersByTime(60000);
    expect(FakeSocket.made).toHaveLength(2);
    vi.useRealTimers();
  });

  it("stops when the server refuses the pipeline", () => {
    vi.useFakeTimers();
    FakeSocket.made = [];
    const states = [];
    connectPipelineSocket("ws://x/", {
      onMessage: () => {},
      onState: (state) => states.push(state),
      WebSocketImpl: FakeSocket,
    });
    FakeSocket.made[0].onclose({ code: 4403 });
    vi.advanceTimersByTime(60000);
    expect(FakeSocket.made).toHaveLength(1);
    expect(states.at(-1)).toBe("forbidden");
    vi.useRealTimers();
  });
});
