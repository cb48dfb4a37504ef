import { ValidationError } from "../../core/index.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Decodes a file's bytes as UTF-8 JSON, refusing anything else with a ValidationError at `$`. */
export function decodeJson(bytes: Buffer, contract: string): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new ValidationError(contract, [{ path: "$", code: "invalid_utf8", message: "must be UTF-8 text" }]);
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new ValidationError(contract, [
      { path: "$", code: "invalid_json", message: `must be JSON: ${(cause as Error).message}` },
    ]);
  }
}
