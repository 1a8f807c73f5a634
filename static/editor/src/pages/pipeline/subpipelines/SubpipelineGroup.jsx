// The palette's "Sub-pipelines" group: the workspace's pipelines that declare ports, dragged
// onto the canvas (or added with Enter / double-click) like operators.

import { subpipelineDrag } from "./subpipelines.js";

export default function SubpipelineGroup({ listing, search, mime, onAdd }) {
  const words = search.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const shown = listing.filter((entry) =>
    words.every((word) => `${entry.name} ${entry.description}`.toLowerCase().includes(word)),
  );
  if (!shown.length) return null;
  return (
    <section className="pw-palette-group" aria-label="Sub-pipelines">
      <h2>Sub-pipelines</h2>
      {shown.map((entry) => {
        const drag = subpipelineDrag(entry);
        const ports = `in: ${entry.inputs.map((p) => p.name).join(", ") || "none"} · out: ${entry.outputs.map((p) => p.name).join(", ") || "none"}`;
        return (
          <div
            key={entry.id}
            className="pw-palette-item pw-kind-process"
            data-subpipeline={entry.id}
            draggable
            role="button"
            tabIndex={0}
            title={`${entry.description || entry.name}\n${ports}\n\nDrag onto the canvas, or press Enter to add.`}
            onDragStart={(event) => {
              event.dataTransfer.setData(mime, drag);
              event.dataTransfer.effectAllowed = "copy";
            }}
            onDoubleClick={() => onAdd(drag)}
            onKeyDown={(event) => {
              if (event.key === "Enter") onAdd(drag);
            }}
          >
            <span className="pw-palette-icon" aria-hidden="true">
              ⚙
            </span>
            <span className="pw-palette-text">
              <span className="pw-palette-title">{entry.name}</span>
              <span className="pw-palette-name">{ports}</span>
            </span>
          </div>
        );
      })}
    </section>
  );
}
