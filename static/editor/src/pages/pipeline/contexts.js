// The React contexts of the editor page, apart from the components that provide or read them.

import { createContext } from "react";

/** The catalog (see document/catalog.js), for node components and panels. */
export const CatalogContext = createContext(null);
/** The store of run states and problems that nodes show (see overlay.js). */
export const OverlayContext = createContext(null);
/** While a connection is dragged, the handles it may not end at (see `refusedEnds` in
 * document/graph.js and canvas/useRefusedEnds.js); an empty Map otherwise. */
export const RefusedEndsContext = createContext(new Map());
/** What notes and groups on the canvas may do (see canvas/useCanvasItems.js): edit a note,
 * rename or ungroup a group; null in a viewer's editor. */
export const CanvasItemsContext = createContext(null);
/** How much the cards show at the canvas's zoom, "full", "title" or "box" (canvas/viewport.js
 * `cardDetail`): read once by the canvas, not by each card, so that a drag's store updates do
 * not call a thousand selectors. */
export const CardDetailContext = createContext("full");
/** Opens the run inside a sub-pipeline node of the canvas shown, by its id
 * (subpipelines/useRunInside.js `openNode`); null where there is no run to look into. */
export const InsideContext = createContext(null);
/** The pipeline's workspace and the page's API client, for fields that pick the workspace's
 * files and connections (form/PathField.jsx, form/ConnectionField.jsx): `{api, workspace}`. */
export const WorkspaceContext = createContext(null);
