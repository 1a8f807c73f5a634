// The connection form's pure part: the SQLAlchemy URL built from the fields a user fills in
// (dialect, host, port, database, user, options) and a pasted URL read back into them, and the
// bodies of the save and "Test connection" requests. The password is write-only: an empty
// field keeps the stored one, "remove" sends "" to clear it, and it never goes into the URL.

/** The databases the form offers: the driver its URLs name and the server's usual port. */
export const DIALECTS = [
  { value: "postgresql", label: "PostgreSQL", driver: "postgresql+psycopg", port: 5432 },
  { value: "mysql", label: "MySQL / MariaDB", driver: "mysql+pymysql", port: 3306 },
  { value: "sqlite", label: "SQLite (a file in this workspace)", driver: "sqlite", port: null },
];

const dialectOf = (value) => DIALECTS.find((dialect) => dialect.value === value) ?? DIALECTS[0];

const SCHEMES = {
  postgresql: "postgresql",
  postgres: "postgresql",
  mysql: "mysql",
  mariadb: "mysql",
  sqlite: "sqlite",
};

const URL_PATTERN =
  /^([a-z][a-z0-9]*)(\+[a-z0-9_]+)?:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?(\[[^\]]*\]|[^/?:]*)(?::(\d*))?(?:\/([^?]*))?(?:\?(.*))?$/i;

const decode = (text) => {
  try {
    return decodeURIComponent(text ?? "");
  } catch {
    return text ?? "";
  }
};

/**
 * The fields of a pasted URL: `{dialect, driver, host, port, database, user, options,
 * password}` (`password` only when the URL held one: the form moves it to its own field), or
 * null when it is no URL of a database the form knows.
 */
export function parseUrl(text) {
  const match = URL_PATTERN.exec(String(text ?? "").trim());
  if (!match) return null;
  const [, scheme, driver, user, password, host, port, database, options] = match;
  const dialect = SCHEMES[scheme.toLowerCase()];
  if (!dialect) return null;
  const fields = {
    dialect,
    driver: ["postgres"].includes(scheme.toLowerCase())
      ? dialectOf(dialect).driver
      : `${scheme}${driver ?? ""}`.toLowerCase(),
    host: dialect === "sqlite" ? "" : decode(host).replace(/^\[(.*)\]$/, "$1"),
    port: dialect === "sqlite" ? "" : (port ?? ""),
    database: decode(database),
    user: dialect === "sqlite" ? "" : decode(user),
    options: options ?? "",
  };
  if (password !== undefined && password !== "" && password !== "***") {
    fields.password = decode(password);
  }
  return fields;
}

const encodePart = (text) => encodeURIComponent(text).replace(/%2F/gi, "/");

/** The URL the fields make (never with a password). */
export function buildUrl(form) {
  const dialect = dialectOf(form.dialect);
  const scheme =
    form.driver && parseUrl(`${form.driver}://`)?.dialect === dialect.value
      ? form.driver
      : dialect.driver;
  if (dialect.value === "sqlite") return `sqlite:///${(form.database ?? "").trim()}`;
  const host = (form.host ?? "").trim();
  const shownHost = host.includes(":") ? `[${host}]` : host;
  const user = (form.user ?? "").trim();
  const port = String(form.port ?? "").trim();
  const database = (form.database ?? "").trim();
  const options = (form.options ?? "").trim().replace(/^\?/, "");
  return (
    `${scheme}://${user ? `${encodeURIComponent(user)}@` : ""}${shownHost}` +
    `${port ? `:${port}` : ""}${database ? `/${encodePart(database)}` : ""}` +
    `${options ? `?${options}` : ""}`
  );
}

/** What the form lacks before it can be saved or tested ("" when nothing). */
export function missingField(form) {
  if (form.dialect === "sqlite") return form.database.trim() ? "" : "the SQLite file";
  if (!form.host.trim()) return "the host";
  if (form.port !== "" && !/^\d+$/.test(String(form.port).trim())) return "a port that is a number";
  return "";
}

/** A new connection's empty form, or `connection`'s (never with its password). */
export function connectionForm(connection = null) {
  const fields = (connection && parseUrl(connection.url)) || {
    dialect: "postgresql",
    driver: "",
    host: "",
    port: "",
    database: "",
    user: "",
    options: "",
  };
  return {
    name: connection?.name ?? "",
    ...fields,
    // a stored URL the fields cannot hold: shown to be fixed (saving waits for the fields)
    unparsed: connection && !parseUrl(connection.url) ? connection.url : "",
    password: "",
    removePassword: false,
    read_only: connection?.read_only ?? true,
    prefix: connection?.prefix ?? "",
    description: connection?.description ?? "",
  };
}

/** `form` with the fields of a pasted `url` (null when it is not a URL the form reads). */
export function withPastedUrl(form, url) {
  const fields = parseUrl(url);
  if (!fields) return null;
  const { password, ...rest } = fields;
  return {
    ...form,
    ...rest,
    ...(password !== undefined ? { password, removePassword: false } : {}),
  };
}

function passwordPart(form) {
  if (form.removePassword) return { password: "" };
  return form.password ? { password: form.password } : {};
}

/** The body of `PUT …/connections/<name>` for a filled-in form. */
export function connectionBody(form) {
  return {
    url: buildUrl(form),
    read_only: form.read_only,
    prefix: form.prefix.trim(),
    description: form.description,
    ...passwordPart(form),
  };
}

/** The body of `POST …/test-connection`: a connection being edited uses its stored password
 * unless another was typed (or it is being removed). */
export function testBody(form, isNew) {
  return {
    url: buildUrl(form),
    ...(isNew || !form.name.trim() ? {} : { name: form.name.trim() }),
    ...passwordPart(form),
  };
}
