import { describe, expect, it } from "vitest";
import { PROVIDER_ERROR_CODES, type ProviderFailure } from "../providers/index.js";
import { turnFailureOf, userModelFailure } from "./model-failure.js";

const URL_IN_IT = "cannot reach http://10.0.0.7:11434/v1: fetch failed (connect ECONNREFUSED 10.0.0.7:11434)";
const INTERNALS = /https?:\/\/|10\.0\.0\.7|ECONNREFUSED|fetch failed|HTTP \d{3}|sk-/;

const failure = (code: ProviderFailure["code"], extra: Partial<ProviderFailure> = {}): ProviderFailure => ({
  code,
  message: URL_IN_IT,
  retryable: false,
  ...extra,
});

describe("a failed model call as its user is told it", () => {
  it("never carries the provider's address, errno, status or body, whatever the code", () => {
    for (const code of PROVIDER_ERROR_CODES) {
      if (code === "missing_key" || code === "refused" || code === "aborted") continue;
      for (const status of [undefined, 400, 401, 404, 429, 500, 503]) {
        const told = userModelFailure(
          failure(code, { ...(status ? { status } : {}), detail: "key sk-abc123 at http://10.0.0.7/x" }),
          "test-model",
        );
        expect(told.message, `${code} ${status}`).not.toMatch(INTERNALS);
        expect(told).not.toHaveProperty("detail");
        expect(told.code).toBe(code);
      }
    }
  });

  it("says the model is unavailable, stopped mid-reply, or refused the request with its reason", () => {
    expect(userModelFailure(failure("network_error"), "m").message).toMatch(
      /^the model is unavailable right now/,
    );
    expect(userModelFailure(failure("http_error", { status: 503 }), "m").message).toMatch(/unavailable/);
    expect(userModelFailure(failure("truncated_stream"), "m").message).toMatch(/stopped answering mid-reply/);
    const refused = userModelFailure(
      failure("http_error", {
        status: 400,
        detail: "context length is 8192 tokens, see https://10.0.0.7/docs",
      }),
      "m",
    );
    expect(refused.message).toBe(
      "the model refused the request: context length is 8192 tokens, see (address withheld)",
    );
    expect(userModelFailure(failure("unknown_model"), "gpt-x").message).toContain('"gpt-x"');
  });

  it("keeps the warden's own words for a missing key, a refusal and a stop", () => {
    const own = "provider local needs an API key: set the environment variable LOCAL_KEY";
    expect(userModelFailure({ code: "missing_key", message: own, retryable: false }, "m").message).toBe(own);
  });

  it("sorts failures by code for the front doors: unavailable, interrupted, refused, setup", () => {
    expect(turnFailureOf({ code: "network_error" })).toBe("model_unavailable");
    expect(turnFailureOf({ code: "http_error", status: 502 })).toBe("model_unavailable");
    expect(turnFailureOf({ code: "http_error", status: 422 })).toBe("model_refused");
    expect(turnFailureOf({ code: "truncated_stream" })).toBe("model_interrupted");
    expect(turnFailureOf({ code: "auth_failed" })).toBe("model_setup");
    expect(turnFailureOf({ code: "refused" })).toBe("refused");
  });
});
