// The live view's websocket client: `/ws/pipelines/<id>/`, reconnecting with backoff.
// Every (re)connect starts with a snapshot from the server, so a reconnect loses nothing.

const FORBIDDEN = 4403;

/** Milliseconds to wait before reconnect attempt `attempt` (0, 1, 2, …): doubling, capped. */
export function backoffDelay(attempt, base = 500, max = 15000) {
  return Math.min(max, base * 2 ** attempt);
}

/** The websocket address of a pipeline's live view on the page's own host. */
export function pipelineSocketUrl(pipelineId, location = window.location) {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/ws/pipelines/${pipelineId}/`;
}

/**
 * Connect and keep connected until `close()`. `onMessage(message)` gets each parsed message;
 * `onState(state)` hears "connecting", "open", "reconnecting" or "forbidden".
 */
export function connectPipelineSocket(
  url,
  { onMessage, onState = () => {}, WebSocketImpl = WebSocket },
) {
  let socket = null;
  let attempt = 0;
  let timer = null;
  let closed = false;

  function open() {
    onState(attempt === 0 ? "connecting" : "reconnecting");
    socket = new WebSocketImpl(url);
    socket.onopen = () => {
      attempt = 0;
      onState("open");
    };
    socket.onmessage = (message) => {
      let data;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      onMessage(data);
    };
    socket.onclose = (event) => {
      socket = null;
      if (closed) return;
      if (event.code === FORBIDDEN) {
        onState("forbidden");
        return;
      }
      onState("reconnecting");
      timer = setTimeout(open, backoffDelay(attempt));
      attempt += 1;
    };
  }

  open();
  return {
    /** Ask for a fresh snapshot (after noticing a gap in the sequence numbers). */
    requestSnapshot() {
      if (socket && socket.readyState === 1)
        socket.send(JSON.stringify({ type: "snapshot_request" }));
    },
    /** Send a message (dropped while not connected: the server hears the state on reconnect). */
    send(message) {
      if (socket && socket.readyState === 1) socket.send(JSON.stringify(message));
    },
    /** Disconnect for good. */
    close() {
      closed = true;
      clearTimeout(timer);
      if (socket) socket.close();
    },
  };
}
