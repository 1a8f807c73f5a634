// The bundle's entry point: mounts the home page or the pipeline editor on `#pipewright-app`,
// whose data attributes carry the page, the pipeline id, the CSRF token and the user name.

import "@xyflow/react/dist/style.css";
import "./editor.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createApi } from "./api.js";
import EditorApp from "./editor/EditorApp.jsx";
import HomeApp from "./home/HomeApp.jsx";

const root = document.getElementById("pipewright-app");
if (root) {
  const { page, pipelineId, csrfToken, userName } = root.dataset;
  const api = createApi(csrfToken);
  const app =
    page === "pipeline" ? (
      <EditorApp api={api} pipelineId={Number(pipelineId)} userName={userName} />
    ) : (
      <HomeApp api={api} userName={userName} />
    );
  createRoot(root).render(<StrictMode>{app}</StrictMode>);
}
