// Per-column statistics of a result: count, nulls, distinct values, min and max, and a small
// histogram (bars drawn as SVG rectangles, each with its label and count for screen readers).

import { formatCell } from "../../../lib/format.js";
import { histogramBars } from "./resultData.js";

const BAR_WIDTH = 120;
const BAR_HEIGHT = 12;

/** `columns`: the stats answer's columns. */
export default function ColumnStats({ columns }) {
  if (!columns.length) return <p className="pw-muted pw-small">No column has statistics.</p>;
  return (
    <ul className="pw-data-stats" aria-label="Column statistics">
      {columns.map((column) => (
        <li key={column.name} className="pw-data-stat">
          <h4>
            {column.name} <span className="pw-type">{column.type}</span>
          </h4>
          <dl className="pw-data-figures">
            <dt>Values</dt>
            <dd>{column.count.toLocaleString("en-US")}</dd>
            <dt>Nulls</dt>
            <dd>{column.nulls.toLocaleString("en-US")}</dd>
            <dt>Distinct</dt>
            <dd title={column.distinct_estimated ? "An estimate: the result is large" : undefined}>
              {column.distinct_estimated ? "≈ " : ""}
              {column.distinct.toLocaleString("en-US")}
            </dd>
            <dt>Min</dt>
            <dd>{formatCell(column.min, column.type)}</dd>
            <dt>Max</dt>
            <dd>{formatCell(column.max, column.type)}</dd>
          </dl>
          <Histogram column={column} />
        </li>
      ))}
    </ul>
  );
}

function Histogram({ column }) {
  const bars = histogramBars(column, (value) => formatCell(value, column.type));
  if (!bars.length) return null;
  const title = "low" in column.histogram[0] ? "Histogram" : "Most frequent";
  return (
    <table className="pw-data-histogram">
      <caption>
        {title} of {column.name}
      </caption>
      <tbody>
        {bars.map((bar, index) => (
          <tr key={index}>
            <th scope="row">{bar.label}</th>
            <td>
              <svg width={BAR_WIDTH} height={BAR_HEIGHT} aria-hidden="true" focusable="false">
                <rect
                  x="0"
                  y="1"
                  width={Math.max(bar.count ? 1 : 0, bar.share * BAR_WIDTH)}
                  height={BAR_HEIGHT - 2}
                  rx="2"
                />
              </svg>
            </td>
            <td className="pw-number">{bar.count.toLocaleString("en-US")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
