// The expression language's functions and documentation page (`GET /api/expressions`), asked
// for once per page and shared by every expression editor on it.

import { useEffect, useState } from "react";
import { createApi } from "../../../io/api.js";

const DOCS_URL = "/docs/expressions/";
let loading = null;

/** A promise of the language (`{functions, operators, constants, docs_url}`), or null. */
export function loadExpressionLanguage() {
  loading ??= createApi("")
    .get("/api/expressions")
    .catch(() => {
      loading = null; // asked again by the next editor
      return null;
    });
  return loading;
}

/** The language once loaded (null before, or when it could not be). */
export function useExpressionLanguage() {
  const [language, setLanguage] = useState(null);
  useEffect(() => {
    let live = true;
    loadExpressionLanguage().then((answer) => live && setLanguage(answer));
    return () => {
      live = false;
    };
  }, []);
  return language;
}

/** The page's Content-Security-Policy nonce for the style elements CodeMirror adds (the
 * editor page's `data-csp-nonce`), or "" on a page without one. */
export function cspNonce() {
  return document.getElementById("pipewright-app")?.dataset.cspNonce ?? "";
}

/** Where the language's page is. */
export function docsUrl(language) {
  return language?.docs_url ?? DOCS_URL;
}
