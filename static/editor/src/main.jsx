// The bundle's entry point: mounts the page named by `#pipewright-app`'s `data-page` (home,
// pipeline, files, workspace). Its data attributes carry the pipeline id, the CSRF token, the
// user's name and staff flag, and the workspace (slug, name, the user's role in it).

import "@xyflow/react/dist/style.css";
import "./ui/base.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { createApi } from "./io/api.js";
// The pages in the order their stylesheets cascade: shared ones first (each component
// imports its own stylesheet before its children, so a parent's rules come first).
import HomeApp from "./pages/home/HomeApp.jsx";
import FilesApp from "./pages/workspace/FilesApp.jsx";
import WorkspaceApp from "./pages/workspace/WorkspaceApp.jsx";
import EditorApp from "./pages/pipeline/EditorApp.jsx";

const PAGES = {
  home: HomeApp,
  pipeline: EditorApp,
  files: FilesApp,
  workspace: WorkspaceApp,
};

const root = document.getElementById("pipewright-app");
if (root) {
  const { page, pipelineId, csrfToken, userName, staff, workspaceSlug, workspaceName, role } =
    root.dataset;
  const Page = PAGES[page] ?? HomeApp;
  const workspace = workspaceSlug ? { slug: workspaceSlug, name: workspaceName, role } : null;
  createRoot(root).render(
    <StrictMode>
      <Page
        api={createApi(csrfToken)}
        pipelineId={Number(pipelineId)}
        userName={userName}
        staff={staff === "true"}
        workspace={workspace}
      />
    </StrictMode>,
  );
}
