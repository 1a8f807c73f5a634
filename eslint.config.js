// ESLint for the browser editor (static/editor/src) and the build's own config files: the
// recommended JavaScript rules, React's (JSX with the automatic runtime), and the rules of
// hooks with the React Compiler's checks (eslint-plugin-react-hooks' recommended set).
// Formatting is Prettier's (.prettierrc.json), not ESLint's. `npm run lint`.
import js from "@eslint/js";
import react from "eslint-plugin-react";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";

export default [
  {
    ignores: [
      "static/editor/dist/",
      "node_modules/",
      ".venv/",
      "bench/",
      "docs/",
      "test-artifacts/",
    ],
  },
  js.configs.recommended,
  // `const { dropped, ...rest } = value` is how the code leaves a key out of an object.
  { rules: { "no-unused-vars": ["error", { ignoreRestSiblings: true }] } },
  {
    files: ["static/editor/src/**/*.{js,jsx}"],
    ...react.configs.flat.recommended,
    ...react.configs.flat["jsx-runtime"],
    languageOptions: {
      ...react.configs.flat.recommended.languageOptions,
      globals: globals.browser,
    },
    settings: { react: { version: "detect" } },
    rules: {
      ...react.configs.flat.recommended.rules,
      ...react.configs.flat["jsx-runtime"].rules,
      // The components' props are documented where they are declared; no PropTypes at run time.
      "react/prop-types": "off",
      // Apostrophes and quotes in the page's English are meant; a stray `>` or `}` is a typo.
      "react/no-unescaped-entities": ["error", { forbid: [">", "}"] }],
      // Links that open a new tab go to Pipewright's own docs: `noopener` is what matters,
      // the referrer may be sent.
      "react/jsx-no-target-blank": ["error", { allowReferrer: true }],
    },
  },
  { files: ["static/editor/src/**/*.{js,jsx}"], ...reactHooks.configs.flat.recommended },
  {
    files: ["static/editor/src/**/*.test.js"],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
  },
  { files: ["*.config.js"], languageOptions: { globals: globals.node } },
];
