// Short messages in the corner: what happened, and why something was refused.

import { useCallback, useMemo, useState } from "react";

let counter = 0;

/** `{toasts, show(message, {kind, details, link, timeout}), dismiss(id), clear()}`; `link` is
 * `{href, label}`, shown after the message. */
export function useToasts() {
  const [toasts, setToasts] = useState([]);
  const dismiss = useCallback(
    (id) => setToasts((all) => all.filter((toast) => toast.id !== id)),
    [],
  );
  const show = useCallback(
    (message, { kind = "info", details = [], link = null, timeout } = {}) => {
      counter += 1;
      const id = counter;
      setToasts((all) => [...all.slice(-4), { id, kind, message, details, link }]);
      const wait = timeout ?? (kind === "error" ? 12000 : 5000);
      if (wait) setTimeout(() => dismiss(id), wait);
      return id;
    },
    [dismiss],
  );
  const clear = useCallback(() => setToasts([]), []);
  return useMemo(() => ({ toasts, show, dismiss, clear }), [toasts, show, dismiss, clear]);
}
