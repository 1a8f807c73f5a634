// The Data tab's page of rows as the JSON objects a pin of edited rows is made of, and back.

/** A page (`{columns: [{name}], rows: [[…]]}`) as pretty JSON text of one object per row. */
export function rowsText(page) {
  const names = page.columns.map((column) => column.name);
  const rows = page.rows.map((row) => Object.fromEntries(names.map((name, at) => [name, row[at]])));
  return JSON.stringify(rows, null, 1);
}

/** The rows of `text`, or an Error saying why they are not a list of objects. */
export function parseRows(text) {
  let rows;
  try {
    rows = JSON.parse(text);
  } catch (error) {
    return new Error(`the rows are not JSON: ${error.message}`);
  }
  const objects = Array.isArray(rows) && rows.every((row) => row && typeof row === "object");
  if (!objects || rows.some(Array.isArray))
    return new Error("the rows are a list of {column: value}");
  return rows;
}
