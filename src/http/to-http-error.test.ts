import { describe, expect, it } from "vitest";
import { ConflictError, IronclawError, NotFoundError, ValidationError } from "../core/index.js";
import { envelopeError } from "./envelope-format.js";
import { HttpError } from "./http-error.js";
import { openAiError } from "./openai-format.js";
import { toHttpError } from "./to-http-error.js";

describe("toHttpError", () => {
  it("answers bad input with 400 naming the first field and how many more there are", () => {
    const error = toHttpError(
      new ValidationError("request body", [
        { path: "$.body.text", message: "is required", code: "invalid_type" },
        { path: "$.body.agent", message: "must be a string", code: "invalid_type" },
      ]),
    );
    expect([error.status, error.code, error.message]).toEqual([
      400,
      "validation_failed",
      "$.body.text: is required (and 1 more)",
    ]);
  });

  it("gives a named error the status of its code", () => {
    expect(toHttpError(new NotFoundError("run", "r1")).status).toBe(404);
    expect(toHttpError(new ConflictError("taken")).status).toBe(409);
    expect(toHttpError(new IronclawError("unavailable", "cell down")).status).toBe(503);
  });

  it("keeps what an internal or unknown error says out of the answer", () => {
    for (const error of [new IronclawError("internal", "row 7 of /srv/db is corrupt"), new Error("boom")])
      expect([toHttpError(error).status, toHttpError(error).message]).toEqual([500, "internal error"]);
  });

  it("keeps the status of fastify's own refusals", () => {
    const refused = Object.assign(new Error("Unsupported Media Type"), { statusCode: 415 });
    expect([toHttpError(refused).status, toHttpError(refused).code]).toEqual([415, "bad_request"]);
  });

  it("lets a surface's translator speak first", () => {
    const error = toHttpError(new ConflictError("taken"), [() => new HttpError("illegal_transition", "no")]);
    expect(error.code).toBe("illegal_transition");
  });
});

describe("the formatters", () => {
  const tooBig = new HttpError("payload_too_large", "text: at most 4 KiB", {
    details: { limit_bytes: 4096 },
    field: "text",
  });

  it("writes the envelope with the code, the message and the details", () => {
    expect(envelopeError(tooBig)).toEqual({
      ok: false,
      data: null,
      error: { code: "payload_too_large", message: "text: at most 4 KiB", details: { limit_bytes: 4096 } },
    });
  });

  it("writes OpenAI's error object, its type following the status unless the error names one", () => {
    expect(openAiError(tooBig)).toEqual({
      error: {
        message: "text: at most 4 KiB",
        type: "invalid_request_error",
        param: "text",
        code: "payload_too_large",
      },
    });
    expect(openAiError(new HttpError("unauthorized", "sign in")).error.code).toBe("invalid_api_key");
    expect(openAiError(new HttpError("bad_gateway", "cut off", { type: "agent_error" })).error).toEqual({
      message: "cut off",
      type: "agent_error",
      param: null,
      code: null,
    });
    expect(openAiError(new HttpError("unavailable", "down")).error.type).toBe("server_error");
  });
});
