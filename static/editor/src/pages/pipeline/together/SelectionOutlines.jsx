// The nodes others selected, outlined in their colour with their name (together.js makes the
// CSS: the canvas itself is not re-rendered when someone else clicks).

import { useMemo } from "react";
import { selectionCss } from "./together.js";

export default function SelectionOutlines({ people }) {
  const css = useMemo(() => selectionCss(people), [people]);
  return css ? <style>{css}</style> : null;
}
