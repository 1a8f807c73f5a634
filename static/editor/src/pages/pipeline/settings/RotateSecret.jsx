// A webhook trigger's "Rotate secret": a new signing secret at once, the old one refused at
// once or kept valid for 24 hours (`keep_old`) so that senders can switch. The new secret is
// handed to `onRotated` to be shown once; the server never tells it again.

import { useState } from "react";
import { FieldMessages } from "../form/Field.jsx";

export default function RotateSecret({ api, url, onRotated }) {
  const [keepOld, setKeepOld] = useState(true);
  const [error, setError] = useState("");
  const rotate = async () => {
    try {
      onRotated(await api.post(url, { keep_old: keepOld }));
      setError("");
    } catch (failure) {
      setError(failure.message);
    }
  };
  return (
    <div className="pw-trigger-rotate">
      <label>
        <input type="checkbox" checked={keepOld} onChange={(e) => setKeepOld(e.target.checked)} />{" "}
        Keep the old secret valid for 24 h
      </label>{" "}
      <button type="button" onClick={rotate}>
        Rotate secret
      </button>
      <FieldMessages messages={error ? [error] : []} />
    </div>
  );
}

/** "the old secret is refused" / "the old secret stays valid until 5 Dec, 13:02". */
export function oldSecretNote(until) {
  if (!until) return "the old secret is refused";
  const when = new Date(until).toLocaleString(undefined, {
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  });
  return `the old secret stays valid until ${when}`;
}
