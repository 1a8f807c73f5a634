// A tiny external store: components subscribe to the slice they show, so that one update
// (a websocket frame) re-renders only the nodes whose state changed.

import { useSyncExternalStore } from "react";

/** A store holding one immutable value. */
export function createStore(initial) {
  let state = initial;
  const listeners = new Set();
  return {
    get: () => state,
    /** Replace the value with `update(value)` (or a value) and notify subscribers once. */
    set(update) {
      const next = typeof update === "function" ? update(state) : update;
      if (next === state) return;
      state = next;
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The part of a store's value `select` picks; re-renders when that part changes identity. */
export function useStore(store, select) {
  return useSyncExternalStore(store.subscribe, () => select(store.get()));
}
