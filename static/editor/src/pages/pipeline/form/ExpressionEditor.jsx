// The editor of expression params (`format: "expression"`): CodeMirror 6 with the language's
// highlighting, completion of the columns of the port the field reads (`x-port`, with their
// types) and of the functions (usage and one-line help, from the runtime's registry), the
// server's problems underlined at their line and columns, and a link to the language's page.

import {
  autocompletion,
  closeBrackets,
  closeBracketsKeymap,
  completionKeymap,
} from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { HighlightStyle, StreamLanguage, syntaxHighlighting } from "@codemirror/language";
import { linter, setDiagnostics } from "@codemirror/lint";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView, keymap, placeholder as placeholderText } from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { useEffect, useRef } from "react";
import { useLatest } from "../../../lib/useLatest.js";
import {
  completionOptions,
  expressionTokens,
  highlightKeywordsOf,
  problemRanges,
} from "./expressionHelp.js";
import { cspNonce, docsUrl, useExpressionLanguage } from "./expressionLanguage.js";

const language = StreamLanguage.define(expressionTokens);

const highlighting = HighlightStyle.define([
  { tag: tags.keyword, color: "#7c3aed", fontWeight: "600" },
  { tag: tags.atom, color: "#b45309" },
  { tag: tags.number, color: "#b45309" },
  { tag: tags.string, color: "#047857" },
  { tag: tags.function(tags.variableName), color: "#1d4ed8" },
  { tag: tags.variableName, color: "#0f172a" },
  { tag: tags.operator, color: "#be185d" },
  { tag: tags.invalid, color: "#b91c1c" },
]);

const theme = EditorView.theme({
  "&": { fontSize: "12.5px", border: "1px solid #cbd5e1", borderRadius: "6px", background: "#fff" },
  "&.cm-focused": { outline: "2px solid #6366f1", outlineOffset: "0" },
  ".cm-content": {
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
    padding: "5px 0",
    minHeight: "2.6em",
  },
  ".cm-line": { padding: "0 7px" },
  ".cm-tooltip-autocomplete ul li": {
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
  },
});

/** The expression editor; `problems` are the server's at this field (with `line`, `column`). */
export default function ExpressionEditor({
  id,
  value,
  onChange,
  columns,
  problems,
  readOnly,
  placeholder,
}) {
  const host = useRef(null);
  const view = useRef(null);
  const changed = useLatest(onChange);
  const editable = useRef(new Compartment());
  const marked = useRef("[]");
  const served = useExpressionLanguage();
  highlightKeywordsOf(served);
  const options = useLatest(completionOptions(columns, served));
  // What the editor starts with when it is made (once per field); later changes of these are
  // followed by the effects below.
  const initial = useLatest({ value, placeholder, readOnly });

  useEffect(() => {
    const start = initial.current;
    const complete = (context) => {
      const word = context.matchBefore(/`[^`]*|[A-Za-z_][A-Za-z0-9_]*/);
      if (!word && !context.explicit) return null;
      return {
        from: word ? word.from : context.pos,
        options: options.current,
        validFor: /^[A-Za-z0-9_]*$/,
      };
    };
    const created = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: start.value ?? "",
        extensions: [
          history(),
          closeBrackets(),
          autocompletion({ override: [complete], activateOnTyping: true }),
          keymap.of([
            ...closeBracketsKeymap,
            ...completionKeymap,
            ...historyKeymap,
            ...defaultKeymap,
          ]),
          language,
          linter(null), // no linting here: the server's check sets the diagnostics
          syntaxHighlighting(highlighting),
          theme,
          EditorView.cspNonce.of(cspNonce()),
          EditorView.lineWrapping,
          placeholderText(start.placeholder ?? ""),
          editable.current.of(EditorView.editable.of(!start.readOnly)),
          EditorView.contentAttributes.of({
            id,
            "aria-labelledby": `${id}-label`,
            "aria-multiline": "true",
            spellcheck: "false",
          }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) {
              const text = update.state.doc.toString();
              changed.current(text === "" ? undefined : text);
            }
          }),
        ],
      }),
    });
    view.current = created;
    return () => created.destroy();
  }, [id, changed, options, initial]);

  useEffect(() => {
    const current = view.current;
    const text = value ?? "";
    if (current && current.state.doc.toString() !== text) {
      current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: text } });
    }
  }, [value]);

  useEffect(() => {
    const current = view.current;
    if (!current) return;
    const text = current.state.doc.toString();
    const diagnostics = problemRanges(problems, text).map((range) => ({
      ...range,
      severity: "error",
    }));
    const shown = JSON.stringify(diagnostics);
    if (shown === marked.current) return; // a transaction would close an open completion list
    marked.current = shown;
    current.dispatch(setDiagnostics(current.state, diagnostics));
  }, [problems]);

  useEffect(() => {
    view.current?.dispatch({
      effects: editable.current.reconfigure(EditorView.editable.of(!readOnly)),
    });
  }, [readOnly]);

  return (
    <div className="pw-expression">
      <div ref={host} className="pw-expression-editor" data-expression-editor="" />
      <a className="pw-expression-docs" href={docsUrl(served)} target="_blank" rel="noopener">
        Expression language
      </a>
    </div>
  );
}
