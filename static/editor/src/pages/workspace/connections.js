// The connection form's pure part: the PUT body from what the user typed. The password is
// write-only: an empty field keeps the stored one, "remove" sends "" to clear it.

/** A new connection's empty form, or `connection`'s (never with its password). */
export function connectionForm(connection = null) {
  return {
    name: connection?.name ?? "",
    url: connection?.url ?? "",
    password: "",
    removePassword: false,
    read_only: connection?.read_only ?? true,
    prefix: connection?.prefix ?? "",
    description: connection?.description ?? "",
  };
}

/** The body of `PUT …/connections/<name>` for a filled-in form. */
export function connectionBody(form) {
  const body = {
    url: form.url.trim(),
    read_only: form.read_only,
    prefix: form.prefix.trim(),
    description: form.description,
  };
  if (form.removePassword) body.password = "";
  else if (form.password) body.password = form.password;
  return body;
}
