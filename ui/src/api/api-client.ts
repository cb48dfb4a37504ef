import type { ErrorBody } from "../../../src/contracts/command/envelope.js";
import type { EndpointKey, Endpoints } from "./endpoints.js";

/** A call's outcome: the data, or the warden's error (or a network failure) as data the view can show. */
export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; error: ApiError };

export type ApiError = ErrorBody & {
  /** Each problem the warden found, when it named more than one (a jobs.toml with several errors). */
  issues?: { path: string; message: string }[];
};

type Params<E> = E extends { params: infer P } ? { params: P } : { params?: never };
type Query<E> = E extends { query: infer Q } ? { query?: Q } : { query?: never };
type Body<E> = E extends { body: infer B } ? { body: B } : { body?: never };
export type CallArgs<K extends EndpointKey> = Params<Endpoints[K]> &
  Query<Endpoints[K]> &
  Body<Endpoints[K]> & { signal?: AbortSignal };
// Arguments may be left out only when nothing in them is required.
type ArgList<K extends EndpointKey> =
  Record<string, never> extends CallArgs<K> ? [CallArgs<K>?] : [CallArgs<K>];

export interface ApiClient {
  call<K extends EndpointKey>(key: K, ...args: ArgList<K>): Promise<ApiResult<Endpoints[K]["response"]>>;
  /** Told of every 401, so the app can show the sign-in form wherever the session ended. */
  onUnauthorized(listener: () => void): () => void;
}

/**
 * The one way the UI talks HTTP to the warden: same-origin fetch with the session cookie. fetch sends the
 * page's Origin on writes, which the warden requires of cookie sign-ins. Never throws: a refused request, a
 * network failure or an answer that is not the { ok, data, error } envelope all come back as `ok: false`.
 */
export function createApiClient(fetcher: typeof fetch = (...a) => fetch(...a), base = ""): ApiClient {
  const listeners = new Set<() => void>();
  return {
    onUnauthorized(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async call(key, ...[args]) {
      const [method = "GET", pattern = ""] = key.split(" ");
      // Widened first: the union of every endpoint's arguments is too large for TypeScript to narrow with ??.
      const a = ((args as object | undefined) ?? {}) as {
        params?: object;
        query?: object;
        body?: unknown;
        signal?: AbortSignal;
      };
      const url = base + fillPath(pattern, a.params) + queryString(a.query);
      const init: RequestInit = {
        method,
        credentials: "same-origin",
        headers: { accept: "application/json" },
      };
      if (a.body instanceof Blob) {
        // A file the user picked (a skill's archive) goes as its bytes; the warden reads its format from them.
        init.headers = { accept: "application/json", "content-type": "application/octet-stream" };
        init.body = a.body;
      } else if (a.body !== undefined) {
        init.headers = { accept: "application/json", "content-type": "application/json" };
        init.body = JSON.stringify(a.body);
      }
      if (a.signal) init.signal = a.signal;
      let response: Response;
      try {
        response = await fetcher(url, init);
      } catch (error) {
        const aborted = (error as Error).name === "AbortError";
        return failure(0, aborted ? "aborted" : "network", aborted ? "cancelled" : unreachable(error));
      }
      const answer = (await response.json().catch(() => null)) as {
        ok?: unknown;
        data?: unknown;
        error?: ApiError & { details?: { issues?: ApiError["issues"] } };
      } | null;
      if (response.status === 401) for (const listener of listeners) listener();
      if (answer?.ok === true) return { ok: true, status: response.status, data: answer.data as never };
      if (answer?.ok === false && answer.error) {
        const { details, ...error } = answer.error;
        return { ok: false, status: response.status, error: { ...error, ...issuesOf(details) } };
      }
      return failure(
        response.status,
        "bad_answer",
        `the warden answered ${response.status} without a JSON envelope`,
      );
    },
  };
}

function fillPath(pattern: string, params: object | undefined): string {
  const values = (params ?? {}) as Record<string, string>;
  return pattern.replace(/:([A-Za-z_]+)/g, (_m, name: string) => encodeURIComponent(values[name] ?? ""));
}

function queryString(query: object | undefined): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {}))
    if (v !== undefined && v !== null && v !== "") search.set(k, String(v));
  const text = search.toString();
  return text ? `?${text}` : "";
}

function issuesOf(details: { issues?: ApiError["issues"] } | undefined): Pick<ApiError, "issues"> {
  return Array.isArray(details?.issues) ? { issues: details.issues } : {};
}

function unreachable(error: unknown): string {
  return `the warden is not reachable (${(error as Error).message}); check that it is running`;
}

function failure(status: number, code: string, message: string): ApiResult<never> {
  return { ok: false, status, error: { code, message } };
}
