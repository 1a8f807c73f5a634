// Keeps the overlay's live run in step with the pipeline's websocket: a snapshot on every
// (re)connect, then one store update per frame; a gap in `seq` asks for a new snapshot.
// The same socket carries editing together (together/together.js): presence and saves.

import { useEffect, useState } from "react";
import { applyFrame, fromSnapshot } from "./runState.js";
import { connectPipelineSocket, pipelineSocketUrl } from "../../../io/socket.js";

/** Connects while mounted; returns the connection state ("open", "reconnecting", …).
 * `sets` are the catalog's status sets (document/statuses.js); `together` hears the rest. */
export function useLiveRun(pipelineId, overlay, sets, together = null) {
  const [connection, setConnection] = useState("connecting");
  useEffect(() => {
    const client = connectPipelineSocket(pipelineSocketUrl(pipelineId), {
      onState(state) {
        setConnection(state);
        if (state === "open") together?.opened();
      },
      onMessage(message) {
        if (message.type === "snapshot") {
          overlay.set((state) => ({ ...state, live: fromSnapshot(state.live, message) }));
        } else if (message.type === "events") {
          let gap = false;
          overlay.set((state) => {
            const result = applyFrame(state.live, message, sets);
            gap = result.gap;
            return result.state === state.live ? state : { ...state, live: result.state };
          });
          if (gap) client.requestSnapshot();
        } else {
          together?.receive(message);
        }
      },
    });
    together?.attach(client);
    return () => client.close();
  }, [pipelineId, overlay, sets, together]);
  return connection;
}
