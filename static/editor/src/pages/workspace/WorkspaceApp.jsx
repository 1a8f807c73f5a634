// A workspace's settings page: its members with their roles and its database connections
// (and, for admins, the schedules the server paused because their owner left).
// Every member sees them; admins add, change and remove members and connections. Connection
// passwords are write-only: the form never shows one, and an empty field keeps the stored one.

import "./workspace.css";
import { useCallback, useEffect, useState } from "react";
import Toasts from "../../ui/Toasts.jsx";
import { useToasts } from "../../ui/useToasts.js";
import { connectionBody, connectionForm } from "./connections.js";
import { testWorkspaceConnection } from "./connectionRequests.js";
import { ROLE_MEANING, ROLES, mayManage, workspaceApi } from "./roles.js";
import WorkspaceHead from "./WorkspaceHead.jsx";
import ListTable from "../../ui/ListTable.jsx";
import ConfirmDialog from "../../ui/ConfirmDialog.jsx";
import { ConnectionDialog } from "./ConnectionDialog.jsx";
import PipelineGraphSection from "./PipelineGraphSection.jsx";

/** The page for `workspace` ({slug, name, role}). */
export default function WorkspaceApp({ api, workspace, userName }) {
  const base = workspaceApi(workspace.slug);
  const admin = mayManage(workspace.role);
  const [members, setMembers] = useState(null);
  const [pausedSchedules, setPausedSchedules] = useState([]);
  const [connections, setConnections] = useState(null);
  const [loadError, setLoadError] = useState("");
  const [memberProblem, setMemberProblem] = useState("");
  const [removing, setRemoving] = useState(null);
  const [editing, setEditing] = useState(null); // {form, isNew}
  const [deleting, setDeleting] = useState(null);
  const toasts = useToasts();

  const load = useCallback(
    () =>
      Promise.all([api.get(base), api.get(`${base}/connections`)]).then(
        ([details, listed]) => {
          setMembers(details.members);
          setPausedSchedules(details.paused_schedules ?? []);
          setConnections(listed.items);
          setLoadError("");
        },
        (error) => setLoadError(error.message),
      ),
    [api, base],
  );
  useEffect(() => {
    load();
  }, [load]);

  const memberUrl = (user) => `${base}/members/${encodeURIComponent(user)}`;

  const setRole = async (user, role) => {
    setMemberProblem("");
    try {
      await api.put(memberUrl(user), { role });
      toasts.show(`${user} is now ${role === "admin" ? "an" : "a"} ${role}.`, { kind: "success" });
    } catch (error) {
      setMemberProblem(`${user} stays as they were: ${error.message}.`);
    }
    await load();
  };

  const removeMember = async (user) => {
    setRemoving(null);
    setMemberProblem("");
    try {
      await api.del(memberUrl(user));
      toasts.show(`${user} was removed from ${workspace.name}.`);
    } catch (error) {
      setMemberProblem(`${user} was not removed: ${error.message}.`);
    }
    await load();
  };

  const saveConnection = async (form) => {
    try {
      await api.put(
        `${base}/connections/${encodeURIComponent(form.name.trim())}`,
        connectionBody(form),
      );
      setEditing(null);
      await load();
      toasts.show(`Saved the connection “${form.name.trim()}”.`, { kind: "success" });
    } catch (error) {
      return error.message;
    }
    return null;
  };

  const testConnection = (form, isNew) => testWorkspaceConnection(api, base, form, isNew);

  const deleteConnection = async (connection) => {
    setDeleting(null);
    try {
      await api.del(`${base}/connections/${encodeURIComponent(connection.name)}`);
      await load();
      toasts.show(`Deleted the connection “${connection.name}”.`);
    } catch (error) {
      toasts.show(`The connection was not deleted: ${error.message}`, { kind: "error" });
    }
  };

  return (
    <div className="pw-home pw-workspace-page">
      <WorkspaceHead workspace={workspace} page="settings" />
      {loadError ? (
        <p className="pw-alert" role="alert">
          The workspace could not be loaded: {loadError}
        </p>
      ) : null}
      {pausedSchedules.length ? (
        <section className="pw-workspace-section" aria-labelledby="pw-paused-schedules">
          <h2 id="pw-paused-schedules">Paused schedules</h2>
          <p className="pw-muted pw-small">
            The server paused these schedules. An editor who saves one again (pipeline Settings →
            Schedules) becomes its owner and can resume it.
          </p>
          <ul role="alert">
            {pausedSchedules.map((schedule) => (
              <li key={schedule.id}>
                <a href={`/pipelines/${schedule.pipeline}/`}>{schedule.pipeline_name}</a>{" "}
                <code>{schedule.cron}</code>: {schedule.reason}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <PipelineGraphSection api={api} slug={workspace.slug} />
      <section className="pw-workspace-section" aria-labelledby="pw-members">
        <div className="pw-workspace-head">
          <h2 id="pw-members">Members</h2>
          {!admin ? (
            <span className="pw-muted pw-small pw-workspace-note">
              Only the workspace's admins change members.
            </span>
          ) : null}
        </div>
        {memberProblem ? (
          <div className="pw-alert" role="alert">
            {memberProblem}
            <button
              type="button"
              className="pw-icon-button"
              aria-label="Dismiss"
              onClick={() => setMemberProblem("")}
            >
              ×
            </button>
          </div>
        ) : null}
        {members === null && !loadError ? <p className="pw-muted">Loading…</p> : null}
        {members?.length ? (
          <ListTable columns={["User", "Role"]}>
            {members.map((member) => (
              <tr key={member.user} data-member={member.user}>
                <td>
                  <strong>{member.user}</strong>
                  {member.user === userName ? <span className="pw-muted"> (you)</span> : null}
                </td>
                <td>
                  {admin ? (
                    <select
                      className="pw-member-role"
                      aria-label={`Role of ${member.user}`}
                      value={member.role}
                      onChange={(event) => setRole(member.user, event.target.value)}
                    >
                      {ROLES.map((role) => (
                        <option key={role} value={role}>
                          {role}: {ROLE_MEANING[role]}
                        </option>
                      ))}
                    </select>
                  ) : (
                    <span className={`pw-role pw-role-${member.role}`}>{member.role}</span>
                  )}
                </td>
                <td className="pw-row-actions">
                  {admin ? (
                    <button
                      type="button"
                      className="pw-danger-soft"
                      onClick={() => setRemoving(member.user)}
                      aria-label={`Remove ${member.user}`}
                    >
                      Remove
                    </button>
                  ) : null}
                </td>
              </tr>
            ))}
          </ListTable>
        ) : null}
        {admin ? <AddMember onAdd={setRole} /> : null}
      </section>
      <section className="pw-workspace-section" aria-labelledby="pw-connections">
        <div className="pw-workspace-head">
          <h2 id="pw-connections">Database connections</h2>
          {admin ? (
            <button
              type="button"
              className="pw-primary pw-workspace-note"
              onClick={() => setEditing({ form: connectionForm(), isNew: true })}
            >
              Add connection
            </button>
          ) : (
            <span className="pw-muted pw-small pw-workspace-note">
              Only the workspace's admins change connections.
            </span>
          )}
        </div>
        <p className="pw-muted pw-small">
          SQL operators of this workspace's pipelines name a connection; its password stays on the
          server and is shown nowhere.
        </p>
        {connections?.length === 0 ? (
          <p className="pw-muted pw-workspace-empty">No connections yet.</p>
        ) : null}
        {connections?.length ? (
          <ListTable columns={["Name", "URL", "Access", "Password"]}>
            {connections.map((connection) => (
              <tr key={connection.name} data-connection={connection.name}>
                <td>
                  <strong>{connection.name}</strong>
                  {connection.description ? (
                    <div className="pw-muted pw-small">{connection.description}</div>
                  ) : null}
                </td>
                <td>
                  <code className="pw-path">{connection.url}</code>
                </td>
                <td>
                  {connection.read_only ? "read-only" : "reads and writes"}
                  {connection.prefix ? (
                    <div className="pw-muted pw-small">
                      tables starting with {connection.prefix}
                    </div>
                  ) : null}
                </td>
                <td>
                  {connection.has_password ? "stored" : <span className="pw-muted">none</span>}
                </td>
                <td className="pw-row-actions">
                  {admin ? (
                    <>
                      <button
                        type="button"
                        onClick={() =>
                          setEditing({ form: connectionForm(connection), isNew: false })
                        }
                        aria-label={`Edit ${connection.name}`}
                      >
                        Edit
                      </button>
                      <button
                        type="button"
                        className="pw-danger-soft"
                        onClick={() => setDeleting(connection)}
                        aria-label={`Delete ${connection.name}`}
                      >
                        Delete
                      </button>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </ListTable>
        ) : null}
      </section>
      {removing ? (
        <ConfirmDialog
          title={`Remove ${removing} from ${workspace.name}?`}
          keepLabel="Keep them"
          actLabel="Remove"
          onConfirm={() => removeMember(removing)}
          onClose={() => setRemoving(null)}
        >
          They no longer see its pipelines, runs, files or connections.
        </ConfirmDialog>
      ) : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete the connection “${deleting.name}”?`}
          onConfirm={() => deleteConnection(deleting)}
          onClose={() => setDeleting(null)}
        >
          Pipelines that name it fail until a connection of that name is added again.
        </ConfirmDialog>
      ) : null}
      {editing ? (
        <ConnectionDialog
          initial={editing.form}
          isNew={editing.isNew}
          hadPassword={
            !editing.isNew && connections.find((c) => c.name === editing.form.name)?.has_password
          }
          onSave={saveConnection}
          onTest={(form) => testConnection(form, editing.isNew)}
          onClose={() => setEditing(null)}
        />
      ) : null}
      <Toasts toasts={toasts.toasts} dismiss={toasts.dismiss} />
    </div>
  );
}

function AddMember({ onAdd }) {
  const [user, setUser] = useState("");
  const [role, setRole] = useState("editor");
  return (
    <form
      className="pw-add-member"
      onSubmit={(event) => {
        event.preventDefault();
        if (!user.trim()) return;
        onAdd(user.trim(), role);
        setUser("");
      }}
    >
      <input
        aria-label="User name to add"
        placeholder="User name"
        value={user}
        maxLength={150}
        onChange={(event) => setUser(event.target.value)}
      />
      <select
        aria-label="Role of the new member"
        value={role}
        onChange={(event) => setRole(event.target.value)}
      >
        {ROLES.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </select>
      <button type="submit" disabled={!user.trim()}>
        Add member
      </button>
    </form>
  );
}
