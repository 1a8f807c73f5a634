// Calls to Pipewright's JSON API with the session's CSRF token, marked as the editor's
// (`X-Pipewright-Client: editor`, which the audit log records as the source). A refused call
// throws an `ApiError` carrying the server's `{code, message, node, field, …}` body.

/** An API call that did not succeed; `body` is the server's error object. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message || `the server answered ${status}`);
    this.status = status;
    this.code = body?.code ?? "http_error";
    this.body = body ?? {};
  }
}

/** A client for one page: `get`, `post` (a JSON body, or a `FormData` for uploads), `put`,
 * `del` return the parsed JSON answer. */
export function createApi(csrfToken) {
  async function call(method, url, body) {
    const headers = {
      Accept: "application/json",
      "X-CSRFToken": csrfToken,
      "X-Pipewright-Client": "editor",
    };
    const init = { method, headers, credentials: "same-origin" };
    if (body instanceof FormData) {
      init.body = body; // the browser sets the multipart Content-Type with its boundary
    } else if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    let response;
    try {
      response = await fetch(url, init);
    } catch {
      throw new ApiError(0, {
        code: "network",
        message: "the server cannot be reached; check your connection",
      });
    }
    const text = await response.text();
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = {
        code: "http_error",
        message: `the server answered ${response.status} ${response.statusText}`,
      };
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }
  return {
    get: (url) => call("GET", url),
    post: (url, body = {}) => call("POST", url, body),
    put: (url, body) => call("PUT", url, body),
    del: (url) => call("DELETE", url),
  };
}
