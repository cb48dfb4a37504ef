import type { ApiClient, ApiResult } from "../api/api-client.js";
import type { EndpointKey, Endpoints } from "../api/endpoints.js";

type Handler<K extends EndpointKey> = (
  args: Record<string, unknown>,
) => ApiResult<Endpoints[K]["response"]> | Promise<ApiResult<Endpoints[K]["response"]>>;

/** A stand-in for the warden's HTTP API in controller tests: each route answers from a handler; calls are recorded. */
export function fakeApi(handlers: { [K in EndpointKey]?: Handler<K> }) {
  const calls: { key: EndpointKey; args: Record<string, unknown> }[] = [];
  const client: ApiClient = {
    onUnauthorized: () => () => {},
    async call(key, ...[args]) {
      const given = ((args as object | undefined) ?? {}) as Record<string, unknown>;
      calls.push({ key, args: given });
      const handler = handlers[key] as Handler<typeof key> | undefined;
      if (!handler)
        return { ok: false, status: 404, error: { code: "not_found", message: `no fake for ${key}` } };
      return (await handler(given)) as never;
    },
  };
  return { client, calls };
}

export const ok = <T>(data: T): ApiResult<T> => ({ ok: true, status: 200, data });
export const refused = (
  status: number,
  code: string,
  message: string,
  issues?: { path: string; message: string }[],
) => ({ ok: false, status, error: { code, message, ...(issues ? { issues } : {}) } }) as const;

/** A promise the test resolves when it chooses: a slow answer. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
