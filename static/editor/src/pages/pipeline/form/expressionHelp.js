// What the expression editor (form/ExpressionEditor.jsx) offers and marks: completions of
// columns and functions, the server's problems as ranges of the text, and the tokens that
// syntax highlighting colours. The language's functions come from `GET /api/expressions`
// (the runtime's registry). Pure functions, no CodeMirror.

// The lexer's reserved words until the server's list (`keywords` of `GET /api/expressions`,
// runtime/expressions/lexer.py) has come: that list wins, so that words the language gains
// (case, like, interval ...) are completed, highlighted and backticked as column names.
const KEYWORDS = ["and", "or", "not", "in", "is", "null", "true", "false", "between"];
KEYWORDS.push("like", "ilike", "case", "when", "then", "else", "end"); // patterns, conditionals
const BARE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
let highlighted = new Set(KEYWORDS);

/** The reserved words of the served `language`, or the built-in ones before it is served. */
export function keywordsOf(language) {
  return language?.keywords?.length ? language.keywords : KEYWORDS;
}

/** Make the highlighting follow the served language's keywords (reserved words and syntax
 * words such as `interval`). */
export function highlightKeywordsOf(language) {
  highlighted = new Set(languageKeywords(language));
}

/** How an expression names column `name`: bare, or in backticks when it must be. */
export function columnReference(name, keywords = KEYWORDS) {
  if (BARE_NAME.test(name) && !keywords.includes(name.toLowerCase())) return name;
  return `\`${name.replace(/\\/g, "\\\\").replace(/`/g, "\\`")}\``;
}

/**
 * The completion options for an expression over `columns` (`[{name, type}]`) with the
 * `language` of `GET /api/expressions`: columns (with their types), functions (with their
 * usage, result and help), then keywords. CodeMirror's option shape.
 */
export function completionOptions(columns, language) {
  const keywords = keywordsOf(language);
  const columnOptions = (columns ?? []).map((column) => ({
    label: column.name,
    apply: columnReference(column.name, keywords),
    type: "variable",
    detail: column.type,
    boost: 2,
  }));
  const functionOptions = (language?.functions ?? []).map((fn) => ({
    label: fn.name,
    apply: `${fn.name}(`,
    type: "function",
    detail: `${fn.usage} → ${fn.returns}`,
    info: fn.help,
    boost: 1,
  }));
  const keywordOptions = languageKeywords(language).map((word) => ({
    label: word,
    type: "keyword",
  }));
  return [...columnOptions, ...functionOptions, ...keywordOptions];
}

/** The keywords to offer: the fixed ones, then the language's one-word operators that are not
 * functions (`interval`, `extract`), so new syntax in the runtime's list reaches completion. */
export function languageKeywords(language) {
  const functions = new Set((language?.functions ?? []).map((fn) => fn.name));
  const words = (language?.operators ?? [])
    .map((operator) => operator.name)
    .filter((name) => /^[a-z_]+$/.test(name) && !functions.has(name));
  return [...new Set([...keywordsOf(language), ...words])];
}

/**
 * The problems with a position (`line`, `column`, `end_column`, 1-based) as ranges of `text`:
 * `[{from, to, message}]`; a problem without an end marks one character (the line's last one
 * when it is at its end). Problems without a position are left to the field's list.
 */
export function problemRanges(problems, text) {
  const lines = text.split("\n");
  const starts = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const ranges = [];
  for (const problem of problems ?? []) {
    if (!problem.line || !problem.column || problem.line > lines.length) continue;
    const lineText = lines[problem.line - 1];
    const lineStart = starts[problem.line - 1];
    let from = lineStart + Math.min(problem.column - 1, lineText.length);
    const endColumn = problem.end_column ?? problem.column + 1;
    let to = lineStart + Math.min(endColumn - 1, lineText.length);
    if (to <= from && from < lineStart + lineText.length) to = from + 1;
    else if (to <= from) [from, to] = [Math.max(lineStart, from - 1), from]; // at the end: its last character
    ranges.push({ from, to, message: problem.message });
  }
  return ranges;
}

/**
 * A tokenizer of the expression language for CodeMirror's `StreamLanguage`: strings,
 * backticked columns, numbers, keywords, function names (a name before "("), operators.
 */
export const expressionTokens = {
  name: "pipewright-expression",
  token(stream) {
    if (stream.eatSpace()) return null;
    const quote = stream.peek();
    if (quote === "'" || quote === '"' || quote === "`") {
      stream.next();
      let escaped = false;
      for (let char = stream.next(); char !== undefined; char = stream.next()) {
        if (char === quote && !escaped) break;
        escaped = !escaped && char === "\\";
      }
      return quote === "`" ? "variableName" : "string";
    }
    if (stream.match(/^(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)(?:[eE][+-]?[0-9]+)?/)) return "number";
    const word = stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
    if (word) {
      const lower = word[0].toLowerCase();
      if (lower === "true" || lower === "false" || lower === "null") return "atom";
      if (highlighted.has(lower)) return "keyword";
      return stream.match(/^\s*\(/, false) ? "function" : "variableName";
    }
    if (stream.match(/^(?:\*\*|==|!=|<>|<=|>=|[-+*/%<>=])/)) return "operator";
    if (stream.match(/^[(),]/)) return "punctuation";
    stream.next();
    return "invalid";
  },
};
