// The connection form's requests, shared by the workspace page and the editor's dialog.

import { connectionBody, testBody } from "./connections.js";

/** "Test connection": `{ok, message}` from the server's one bounded try (never throws). */
export async function testWorkspaceConnection(api, base, form, isNew) {
  try {
    return await api.post(`${base}/test-connection`, testBody(form, isNew));
  } catch (error) {
    return { ok: false, message: error.message };
  }
}

/** Save the form as connection `form.name` of the workspace at `base`. */
export const saveWorkspaceConnection = (api, base, form) =>
  api.put(`${base}/connections/${encodeURIComponent(form.name.trim())}`, connectionBody(form));
