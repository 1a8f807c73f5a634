import { describe, expect, it } from "vitest";
import { connectionBody, connectionForm } from "./connections.js";
import {
  breadcrumbs,
  deleteUrl,
  downloadUrl,
  formatSize,
  isReadOnlyFolder,
  listUrl,
  mayDelete,
  uploadProblem,
  isNameTaken,
  isTaken,
  uploadForm,
} from "./files.js";
import { filesUrl, groupByWorkspace, mayEdit, mayManage } from "./roles.js";

const own = { slug: "ada", name: "ada", personal: true, mine: true, role: "admin" };
const team = { slug: "team", name: "Team", personal: false, mine: false, role: "viewer" };
const bob = { slug: "bob", name: "bob", personal: true, mine: false, role: "admin" };

describe("roles", () => {
  it("let editors and admins edit, and only admins manage", () => {
    expect(["viewer", "editor", "admin", undefined].map(mayEdit)).toEqual([
      false,
      true,
      true,
      false,
    ]);
    expect(["viewer", "editor", "admin"].map(mayManage)).toEqual([false, false, true]);
  });
});

describe("the home page's sections", () => {
  it("keep the server's order of workspaces, each with its own pipelines", () => {
    const pipelines = [
      { id: 1, workspace: "team" },
      { id: 2, workspace: "ada" },
      { id: 3, workspace: "team" },
    ];
    const sections = groupByWorkspace([own, team], pipelines);
    expect(
      sections.map((section) => [section.workspace.slug, section.pipelines.map((p) => p.id)]),
    ).toEqual([
      ["ada", [2]],
      ["team", [1, 3]],
    ]);
  });

  it("show an empty workspace, but not, to staff, other users' empty personal ones", () => {
    expect(groupByWorkspace([own, team, bob], []).map((section) => section.workspace.slug)).toEqual(
      ["ada", "team", "bob"],
    );
    expect(
      groupByWorkspace([own, team, bob], [], { staff: true }).map(
        (section) => section.workspace.slug,
      ),
    ).toEqual(["ada", "team"]);
    const withPipeline = groupByWorkspace([own, team, bob], [{ id: 9, workspace: "bob" }], {
      staff: true,
    });
    expect(withPipeline.map((section) => section.workspace.slug)).toEqual(["ada", "team", "bob"]);
  });

  it("leave out a pipeline of a workspace that is not listed", () => {
    expect(groupByWorkspace([own], [{ id: 1, workspace: "elsewhere" }])[0].pipelines).toEqual([]);
  });
});

describe("the Files page", () => {
  it("offers Delete to editors, except on read-only entries and the shared folder itself", () => {
    const file = { path: "a.csv", read_only: false };
    expect(mayDelete(file, "editor")).toBe(true);
    expect(mayDelete(file, "viewer")).toBe(false);
    expect(mayDelete({ path: "shared", read_only: false }, "admin")).toBe(false);
    expect(mayDelete({ path: "shared/x.csv", read_only: true }, "admin")).toBe(false);
  });

  it("shows breadcrumbs from the workspace's top to the folder", () => {
    expect(breadcrumbs("", "Team")).toEqual([{ name: "Team", folder: "" }]);
    expect(breadcrumbs("shared/sales/2024", "Team")).toEqual([
      { name: "Team", folder: "" },
      { name: "shared", folder: "shared" },
      { name: "sales", folder: "shared/sales" },
      { name: "2024", folder: "shared/sales/2024" },
    ]);
  });

  it("treats the shared folder as read-only except for staff", () => {
    expect(isReadOnlyFolder("shared", false)).toBe(true);
    expect(isReadOnlyFolder("shared/sales", false)).toBe(true);
    expect(isReadOnlyFolder("shared/sales", true)).toBe(false);
    expect(isReadOnlyFolder("sharedness", false)).toBe(false);
    expect(isReadOnlyFolder("", false)).toBe(false);
  });

  it("reads sizes in bytes, KB, MB and GB", () => {
    expect([null, 0, 512, 1536, 20 * 1024, 5 * 2 ** 20, 3.5 * 2 ** 30].map(formatSize)).toEqual([
      "",
      "0 B",
      "512 B",
      "1.5 KB",
      "20 KB",
      "5.0 MB",
      "3.5 GB",
    ]);
  });

  it("encodes paths in the API's addresses", () => {
    expect(listUrl("team", "a b")).toBe("/api/workspaces/team/files?folder=a%20b");
    expect(downloadUrl("team", "a/b&c.csv")).toBe(
      "/api/workspaces/team/files/content?path=a%2Fb%26c.csv",
    );
    expect(deleteUrl("team", "x.csv")).toBe("/api/workspaces/team/files?path=x.csv");
    expect(filesUrl("team", "shared/x")).toBe("/workspaces/team/files/?folder=shared%2Fx");
    expect(filesUrl("team")).toBe("/workspaces/team/files/");
  });

  it("asks before an upload over a listed file, or once the server says the name is taken", () => {
    const listed = [
      { name: "in", kind: "folder" },
      { name: "people.csv", kind: "file" },
    ];
    expect(isTaken(listed, "people.csv")).toBe(true);
    expect(isTaken(listed, "in")).toBe(false);
    expect(isTaken(null, "people.csv")).toBe(false);
    expect(isNameTaken({ status: 409, code: "file_exists" })).toBe(true);
    expect(isNameTaken({ status: 409, code: "is_folder" })).toBe(false);
  });

  it("sends replace=true only when the user confirmed it", () => {
    const file = new Blob(["id\n"]);
    expect(uploadForm(file, "in", false).get("replace")).toBe("false");
    expect(uploadForm(file, "in", true).get("replace")).toBe("true");
    expect(uploadForm(file, "in", true).get("folder")).toBe("in");
  });

  it("says a refused upload was too large, with the server's limit", () => {
    const tooLarge = {
      status: 413,
      message: "the file is 2,097,152 bytes; the limit is 1,048,576",
    };
    expect(uploadProblem("big.csv", tooLarge)).toBe(
      "big.csv is too large to upload: the file is 2,097,152 bytes; the limit is 1,048,576.",
    );
    expect(uploadProblem("x.csv", { status: 403, message: "you are a viewer" })).toBe(
      "x.csv was not uploaded: you are a viewer",
    );
  });
});

describe("the connection form", () => {
  const stored = {
    name: "shop",
    url: "postgresql://reader@db/shop",
    has_password: true,
    read_only: true,
    prefix: "",
    description: "",
  };

  it("never starts with a password, and an empty one keeps the stored password", () => {
    const form = connectionForm(stored);
    expect(form.password).toBe("");
    expect(connectionBody(form)).toEqual({
      url: "postgresql://reader@db/shop",
      read_only: true,
      prefix: "",
      description: "",
    });
  });

  it("sends a typed password, and an empty one to remove it", () => {
    expect(connectionBody({ ...connectionForm(stored), password: "s3cret" }).password).toBe(
      "s3cret",
    );
    expect(
      connectionBody({ ...connectionForm(stored), password: "typed", removePassword: true })
        .password,
    ).toBe("");
  });

  it("makes a new connection read-only by default", () => {
    expect(connectionForm()).toMatchObject({ name: "", dialect: "postgresql", read_only: true });
  });
});
