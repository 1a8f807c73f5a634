// A connection field: a dropdown of the workspace's database connections, and, for those who
// manage them, "New connection…" opening the connection form (workspace/ConnectionDialog.jsx).

import { useContext, useState } from "react";
import { WorkspaceContext } from "../contexts.js";
import { ConnectionDialog } from "../../workspace/ConnectionDialog.jsx";
import { connectionForm } from "../../workspace/connections.js";
import {
  saveWorkspaceConnection,
  testWorkspaceConnection,
} from "../../workspace/connectionRequests.js";
import { mayManage, settingsUrl, workspaceApi } from "../../workspace/roles.js";
import { refreshWorkspaceLists, useConnections } from "./workspaceLists.js";

const NEW = "\u0000new";

export default function ConnectionField({ common, value, readOnly, onChange }) {
  const access = useContext(WorkspaceContext);
  const connections = useConnections(access);
  const [creating, setCreating] = useState(false);
  if (!access) {
    return (
      <input
        {...common}
        type="text"
        value={value ?? ""}
        onChange={(e) => onChange(e.target.value)}
      />
    );
  }
  const { api, workspace } = access;
  const base = workspaceApi(workspace.slug);
  const names = (connections ?? []).map((connection) => connection.name);
  const unknown = value && connections && !names.includes(value);
  const manager = mayManage(workspace.role) && !readOnly;
  return (
    <>
      <select
        {...common}
        value={value ?? ""}
        onChange={(event) => {
          if (event.target.value === NEW) setCreating(true);
          else onChange(event.target.value || undefined);
        }}
      >
        <option value="">{connections === null ? "Loading…" : "— choose a connection —"}</option>
        {(connections ?? []).map((connection) => (
          <option key={connection.name} value={connection.name}>
            {connection.name} ({connection.read_only ? "read-only" : "reads and writes"})
          </option>
        ))}
        {unknown ? <option value={value}>{value} (not in this workspace)</option> : null}
        {manager ? <option value={NEW}>New connection…</option> : null}
      </select>
      {connections?.length === 0 && !manager ? (
        <p className="pw-hint">
          This workspace has no connections; its admins add them in{" "}
          <a href={settingsUrl(workspace.slug)}>the workspace's settings</a>.
        </p>
      ) : null}
      {creating ? (
        <ConnectionDialog
          initial={connectionForm()}
          isNew
          hadPassword={false}
          onTest={(form) => testWorkspaceConnection(api, base, form, true)}
          onSave={async (form) => {
            try {
              await saveWorkspaceConnection(api, base, form);
            } catch (error) {
              return error.message;
            }
            refreshWorkspaceLists(workspace.slug);
            onChange(form.name.trim());
            setCreating(false);
            return null;
          }}
          onClose={() => setCreating(false)}
        />
      ) : null}
    </>
  );
}
