import type { FastifyReply } from "fastify";
import type { HttpError } from "./http-error.js";

/** OpenAI's error object, which its SDKs turn into their usual exceptions (AuthenticationError, …). */
export interface OpenAiErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

/** OpenAI's `code` for the few of our codes its clients switch on; the rest answer null, as OpenAI does. */
const OPENAI_CODES: Partial<Record<HttpError["code"], string>> = {
  unauthorized: "invalid_api_key",
  payload_too_large: "payload_too_large",
};

/** The error in OpenAI's shape (/v1): the type follows the status unless the error names its own. */
export function openAiError(error: HttpError): OpenAiErrorBody {
  return {
    error: {
      message: error.message,
      type: error.type ?? (error.status >= 500 ? "server_error" : "invalid_request_error"),
      param: error.field ?? null,
      code: error.reason ?? OPENAI_CODES[error.code] ?? null,
    },
  };
}

/** Answers with the error's status, headers and OpenAI's error object. */
export function sendOpenAiError(reply: FastifyReply, error: HttpError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  return reply.code(error.status).send(openAiError(error));
}
