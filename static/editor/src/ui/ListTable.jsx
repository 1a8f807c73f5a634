// A list shown as a table in a card: the column headings, then the rows the caller renders;
// the last column holds each row's actions (its heading is for screen readers only).

/** `columns`: headings, each a string or `{label, className}`. */
export default function ListTable({ columns, className = "", children }) {
  return (
    <div className="pw-card-box">
      <table className={`pw-table pw-pipelines ${className}`.trim()}>
        <thead>
          <tr>
            {columns.map((column) => {
              const { label, className: cell } =
                typeof column === "string" ? { label: column } : column;
              return (
                <th key={label} className={cell}>
                  {label}
                </th>
              );
            })}
            <th>
              <span className="pw-visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
