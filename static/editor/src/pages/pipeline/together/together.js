// Editing together: who else has the pipeline open (and what they selected), and the newest
// save someone else made, from the live view's websocket (`editor.live.presence` on the
// server). A store, like the overlay: the socket writes it, the top bar and canvas read it.

import { createStore } from "../../../lib/store.js";

export const NOBODY = { people: {}, saved: null, newer: null };

/** A store of `{people, saved, newer}`: `people` by presence id (`{id, user, name, initials,
 * colour, selection}`), `saved` the last save message heard, `newer` a save not loaded yet
 * (`{by, revision}`), plus `attach(client)` and `select(nodeId)` to tell the others. */
export function createTogether() {
  const store = createStore(NOBODY);
  let client = null;
  let selection = null;
  return {
    ...store,
    /** The socket to send selections on; the current selection is told at once. */
    attach(next) {
      client = next;
    },
    /** After a (re)connect: the others tell who they are again, and hear our selection. */
    opened() {
      store.set((state) => ({ ...state, people: {} }));
      if (client && selection) client.send({ type: "select", node: selection });
    },
    select(nodeId) {
      if (nodeId === selection) return;
      selection = nodeId;
      client?.send({ type: "select", node: nodeId });
    },
    receive(message) {
      store.set((state) => applyMessage(state, message));
    },
  };
}

/** The state after one socket message (`presence`, `presence_left` or `saved`). */
export function applyMessage(state, message) {
  if (message.type === "presence") {
    const person = { ...message.who, selection: message.selection ?? null };
    return { ...state, people: { ...state.people, [person.id]: person } };
  }
  if (message.type === "presence_left") {
    if (!(message.id in state.people)) return state;
    const people = { ...state.people };
    delete people[message.id];
    return { ...state, people };
  }
  if (message.type === "saved") {
    const { by, revision, user, username } = message;
    return { ...state, saved: { by, revision, user, username } };
  }
  return state;
}

/** One entry per person (several tabs of one user are one avatar), by name. */
export function shownPeople(people) {
  const byUser = new Map();
  for (const person of Object.values(people)) {
    const seen = byUser.get(person.user);
    byUser.set(person.user, {
      ...person,
      selections: [...(seen?.selections ?? []), person.selection].filter(Boolean),
    });
  }
  return [...byUser.values()].sort((a, b) => a.name.localeCompare(b.name));
}

/** `text` as a CSS string: every character but a letter, digit, _ or - as a hex escape, so
 * that nothing another person sends (a name, a node id) ends the string or the rule. */
export const cssString = (text) =>
  `"${String(text).replace(/[^A-Za-z0-9_-]/gu, (c) => `\\${c.codePointAt(0).toString(16)} `)}"`;
const COLOUR = /^#[0-9a-f]{6}$/i;

/** CSS that outlines each node another person selected in their colour, with their name. */
export function selectionCss(people) {
  const rules = [];
  for (const person of shownPeople(people)) {
    const colour = COLOUR.test(person.colour) ? person.colour : "#555555";
    for (const nodeId of person.selections) {
      const node = `.react-flow__node[data-id=${cssString(nodeId)}]`;
      rules.push(
        `${node} [data-node-id]{outline:3px solid ${colour};outline-offset:2px}`,
        `${node}::after{content:${cssString(person.name)};position:absolute;left:0;top:-22px;` +
          `background:${colour};color:#fff;font-size:11px;padding:1px 6px;` +
          `border-radius:4px;white-space:nowrap;pointer-events:none}`,
      );
    }
  }
  return rules.join("\n");
}
