// The bottom panel's top edge: dragged up or down it resizes the panel; focused, the arrow
// keys do (a WAI-ARIA window splitter). The height chosen is kept (panelHeight.js).

import { useLayoutEffect, useRef, useState } from "react";
import { clampPanelHeight, heightForKey, MIN_PANEL_HEIGHT } from "./panelHeight.js";

/** The splitter of the panel it is the first child of; `height` is the chosen one or null. */
export default function PanelSplitter({ height, onResize }) {
  const handle = useRef(null);
  const drag = useRef(null);
  const panel = () => handle.current.parentElement;
  const room = () => panel().parentElement?.clientHeight ?? window.innerHeight;
  // The panel's height as drawn (the stylesheet's until one is chosen), for screen readers.
  const [now, setNow] = useState(height ?? MIN_PANEL_HEIGHT);
  useLayoutEffect(() => {
    setNow(Math.round(handle.current.parentElement.getBoundingClientRect().height));
  }, [height]);
  return (
    <div
      ref={handle}
      className="pw-bottom-splitter"
      role="separator"
      aria-orientation="horizontal"
      aria-label="Resize the panel"
      aria-valuenow={now}
      aria-valuemin={MIN_PANEL_HEIGHT}
      aria-valuemax={Math.max(now, Math.round(window.innerHeight))}
      title="Drag to resize the panel (or focus and use the arrow keys)"
      tabIndex={0}
      onPointerDown={(event) => {
        if (event.button !== 0) return;
        event.preventDefault();
        event.currentTarget.setPointerCapture(event.pointerId);
        drag.current = { y: event.clientY, height: panel().getBoundingClientRect().height };
      }}
      onPointerMove={(event) => {
        if (!drag.current) return;
        const wanted = drag.current.height + drag.current.y - event.clientY;
        onResize(clampPanelHeight(wanted, room()));
      }}
      onPointerUp={() => {
        drag.current = null;
      }}
      onKeyDown={(event) => {
        const now = panel().getBoundingClientRect().height;
        const wanted = heightForKey(event.key, event.shiftKey, now);
        if (wanted === null) return;
        event.preventDefault();
        onResize(clampPanelHeight(wanted, room()));
      }}
    />
  );
}
