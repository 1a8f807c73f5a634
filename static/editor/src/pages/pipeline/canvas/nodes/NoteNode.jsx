// A sticky note on the canvas: its markdown rendered (safely, see markdown.js); double click
// or "Edit" writes it in a text box (Escape or leaving the box ends, Ctrl+Enter too), the
// swatches of a selected note colour it, and the corner handle resizes it. It is no operator: it has no ports and the runtime never sees it.

import "./items.css";
import { NodeResizeControl } from "@xyflow/react";
import { memo, useContext, useMemo, useState } from "react";
import { CanvasItemsContext } from "../../contexts.js";
import { NOTE_COLORS, NOTE_MIN, noteSize } from "../../document/canvasItems.js";
import { renderMarkdown } from "../../../../lib/markdown.js";

function NoteNode({ data, selected }) {
  const items = useContext(CanvasItemsContext);
  const { note } = data;
  const editing = !items.readOnly && items.editing === note.id;
  const html = useMemo(() => renderMarkdown(note.text), [note.text]);
  const start = () => {
    if (!items.readOnly) items.setEditing(note.id);
  };
  return (
    <div
      className={`pw-note pw-note-${note.color ?? NOTE_COLORS[0]}${selected ? " pw-selected" : ""}`}
      data-note-id={note.id}
      style={noteSize(note)}
      onDoubleClick={start}
    >
      {editing ? (
        <NoteEditor note={note} items={items} />
      ) : note.text.trim() ? (
        <div className="pw-note-text" dangerouslySetInnerHTML={{ __html: html }} />
      ) : (
        <p className="pw-note-text pw-muted">
          {items.readOnly ? "An empty note" : "Double-click to write (markdown)"}
        </p>
      )}
      {!items.readOnly && selected && !editing ? (
        <div className="pw-note-tools nodrag">
          {NOTE_COLORS.map((color) => (
            <button
              key={color}
              type="button"
              className={`pw-note-swatch pw-note-${color}`}
              aria-label={`${color[0].toUpperCase()}${color.slice(1)} note`}
              aria-pressed={(note.color ?? NOTE_COLORS[0]) === color}
              title={color}
              onClick={() => items.editNote(note.id, { color })}
            />
          ))}
          <button type="button" className="pw-note-edit" onClick={start}>
            Edit note
          </button>
        </div>
      ) : null}
      {!items.readOnly ? (
        <NodeResizeControl
          className="pw-note-resize"
          position="bottom-right"
          minWidth={NOTE_MIN.width}
          minHeight={NOTE_MIN.height}
          aria-label="Resize note"
        />
      ) : null}
    </div>
  );
}

/** The note's text box: its text is saved (one undo step) when the box is left. */
function NoteEditor({ note, items }) {
  const [draft, setDraft] = useState(note.text);
  const finish = () => {
    if (draft !== note.text) items.editNote(note.id, { text: draft });
    items.setEditing(null);
  };
  return (
    <textarea
      className="pw-note-editor nodrag nowheel nopan"
      aria-label="Note text (markdown)"
      autoFocus
      value={draft}
      maxLength={10000}
      onChange={(event) => setDraft(event.target.value)}
      onBlur={finish}
      onKeyDown={(event) => {
        event.stopPropagation();
        if (event.key === "Escape" || (event.key === "Enter" && (event.ctrlKey || event.metaKey)))
          event.currentTarget.blur();
      }}
    />
  );
}

export default memo(NoteNode);
