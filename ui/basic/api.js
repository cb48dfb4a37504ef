// The warden's JSON API from the page. Every answer is the { ok, data, error } envelope plus the HTTP status;
// a network failure or a non-envelope answer comes back as an { ok: false } envelope too, never as a throw.
// fetch sends the page's Origin on POST and DELETE, which the warden's CSRF check requires of cookie sign-ins.

export async function api(method, path, body) {
  const init = { method, headers: { accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  try {
    const response = await fetch(path, init);
    const answer = await response.json().catch(() => null);
    if (answer && typeof answer.ok === "boolean") return { ...answer, status: response.status };
    return failure(
      response.status,
      "bad_answer",
      `the warden answered ${response.status} without a JSON envelope`,
    );
  } catch (error) {
    return failure(0, "network", `the warden is not reachable (${error.message}); check that it is running`);
  }
}

function failure(status, code, message) {
  return { ok: false, status, data: null, error: { code, message } };
}
