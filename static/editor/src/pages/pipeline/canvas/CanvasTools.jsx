// The canvas's own tools, over its top left corner: add a sticky note, group the selected
// nodes (Ctrl+G) and take them out of their groups (Ctrl+Shift+G).

import { Panel } from "@xyflow/react";
import { memo } from "react";

/** `items` is canvas/useCanvasItems.js's; `selectedNodes` how many nodes are selected. */
function CanvasTools({ items, selectedNodes }) {
  return (
    <Panel position="top-left" className="pw-canvas-tools" role="toolbar" aria-label="Canvas">
      <button
        type="button"
        className="pw-button"
        onClick={items.addNote}
        title="A sticky note in the middle of the view (markdown)"
      >
        Add note
      </button>
      <button
        type="button"
        className="pw-button"
        onClick={items.group}
        disabled={!selectedNodes}
        title="Frame the selected nodes in a group (Ctrl+G)"
      >
        Group
      </button>
      <button
        type="button"
        className="pw-button"
        onClick={items.removeFromGroups}
        disabled={!selectedNodes}
        title="Take the selected nodes out of their groups (Ctrl+Shift+G)"
      >
        Remove from group
      </button>
    </Panel>
  );
}

export default memo(CanvasTools);
