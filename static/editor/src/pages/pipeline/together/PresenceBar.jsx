// Who else has the pipeline open, as initials in their colour (their name on hover and for
// screen readers), and a note when one of them saved a version this editor has not loaded.

import "./together.css";
import { shownPeople } from "./together.js";

export default function PresenceBar({ people, newer }) {
  const shown = shownPeople(people);
  if (!shown.length && !newer) return null;
  return (
    <div className="pw-presence">
      {shown.length ? (
        <ul className="pw-avatars" aria-label="Also editing">
          {shown.map((person) => (
            <li
              key={person.user}
              className="pw-avatar"
              style={{ background: person.colour }}
              title={`${person.name} has this pipeline open`}
              aria-label={person.name}
            >
              {person.initials}
            </li>
          ))}
        </ul>
      ) : null}
      {newer ? (
        <span className="pw-newer" aria-live="polite" title="Your next save merges their changes">
          {newer.by} saved a newer version
        </span>
      ) : null}
    </div>
  );
}
