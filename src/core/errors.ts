/**
 * Named errors for bad input at a boundary and for programmer errors. Work that has already started reports
 * failures as data (error events, `isError` tool results) instead of throwing.
 */
export class IronclawError extends Error {
  override readonly name: string = "IronclawError";
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** One problem found in an input, located by a JSON path such as `$.events[2].score`. */
export interface Issue {
  path: string;
  message: string;
  code: string;
}

export class InvalidInputError extends IronclawError {
  override readonly name = "InvalidInputError";
  constructor(
    readonly path: string,
    readonly rule: string,
    options?: { cause?: unknown },
  ) {
    super("invalid_input", `${path}: ${rule}`, options);
  }
}

/** Every problem found while validating one value against a contract. */
export class ValidationError extends IronclawError {
  override readonly name = "ValidationError";
  constructor(
    readonly contract: string,
    readonly issues: Issue[],
    options?: { cause?: unknown },
  ) {
    super("validation_failed", formatIssues(contract, issues), options);
  }
}

/** A configuration file that failed to parse or validate; names the file, line where known, key and rule. */
export class ConfigError extends IronclawError {
  override readonly name = "ConfigError";
  constructor(
    readonly file: string,
    readonly problems: Array<{ key: string; rule: string; line?: number }>,
    options?: { cause?: unknown },
  ) {
    super(
      "config_invalid",
      problems
        .map((p) => `${file}${p.line === undefined ? "" : `:${p.line}`}: ${p.key}: ${p.rule}`)
        .join("\n"),
      options,
    );
  }
}

export class NotFoundError extends IronclawError {
  override readonly name = "NotFoundError";
  constructor(
    readonly what: string,
    readonly id: string,
  ) {
    super("not_found", `${what} ${id} not found`);
  }
}

export class ConflictError extends IronclawError {
  override readonly name = "ConflictError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("conflict", message, options);
  }
}

export function formatIssues(contract: string, issues: Issue[]): string {
  const lines = issues.map((i) => `  ${i.path}: ${i.message}`);
  return `${contract}: ${issues.length} problem${issues.length === 1 ? "" : "s"}\n${lines.join("\n")}`;
}

/** A JSON path (`$.a.b[0]`) for a list of keys and indexes; keys that are not identifiers are quoted. */
export function jsonPath(segments: ReadonlyArray<PropertyKey>): string {
  let out = "$";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else if (typeof segment === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(segment)) out += `.${segment}`;
    else out += `[${JSON.stringify(String(segment))}]`;
  }
  return out;
}
