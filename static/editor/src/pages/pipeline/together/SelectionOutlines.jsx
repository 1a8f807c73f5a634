// The nodes others selected, outlined in their colour with their name (together.js makes the
// CSS: the canvas itself is not re-rendered when someone else clicks). The style element
// carries the page's CSP nonce, and is made anew for new CSS.

import { useMemo } from "react";
import { cspNonce } from "../form/expressionLanguage.js";
import { selectionCss } from "./together.js";

export default function SelectionOutlines({ people }) {
  const css = useMemo(() => selectionCss(people), [people]);
  return css ? (
    <style key={css} nonce={cspNonce()}>
      {css}
    </style>
  ) : null;
}
