import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
// core's files by name, not its index: every contract loads this at a cell's boot, and core's index brings the
// logger and pino (INNER_IMPORTS in test/structure/house-rules.ts).
import { type Issue, jsonPath, ValidationError } from "../core/errors.js";
import { issuesFromZod } from "../core/zod-issues.js";
import { findUnknownKeys } from "./unknown-keys.js";

export type Seed = "000" | "001" | "002" | "003" | "004";

/** How a file of a contract is read before validation. */
export type ContractFormat = "json" | "toml" | "text";

/**
 * One wire or file format of the seeds. The schema is the TypeScript type (`z.output`), the runtime
 * validator and the source of the exported JSON Schema. `decode` turns a file's text into the value to
 * validate (JSON.parse, TOML, or a text extractor such as the `<completion>` block parser).
 */
export interface Contract<S extends z.ZodType = z.ZodType> {
  /** The name used on the command line and for the exported schema file (`ironclaw validate <kind>`). */
  kind: string;
  seed: Seed;
  title: string;
  description: string;
  format: ContractFormat;
  schema: S;
  /**
   * The declarative form of `schema`, when `schema` picks between several accepted forms in code (to report only
   * the chosen form's problems and validate once): what the JSON Schema export shows and the unknown-key scan
   * walks. Defaults to `schema`.
   */
  shape?: z.ZodType;
  /** Only for `text` contracts: extracts the value to validate, or returns issues when there is none. */
  decodeText?: (text: string) => { value: unknown } | { issues: Issue[] };
}

export function defineContract<S extends z.ZodType>(contract: Contract<S>): Contract<S> {
  return contract;
}

/**
 * The outcome of validating one value. `warnings` lists the keys no seed names (code `unknown_key`): they are
 * accepted and kept in `value`, because no seed closes its objects, and `ironclaw validate --strict` refuses them.
 */
export type ValidationResult<T> =
  | { ok: true; value: T; warnings: Issue[] }
  | { ok: false; issues: Issue[]; warnings: Issue[] };

export const UNKNOWN_KEY_MESSAGE = "is not a field of this contract; accepted and kept as is";

/** The unknown keys of a value as warnings, located by JSON path. */
export function unknownKeyWarnings(contract: Contract, value: unknown): Issue[] {
  return findUnknownKeys(contract.shape ?? contract.schema, value).map((path) => ({
    path: jsonPath(path),
    code: "unknown_key",
    message: UNKNOWN_KEY_MESSAGE,
  }));
}

/** Validates a decoded value; never throws for bad input. */
export function checkValue<S extends z.ZodType>(
  contract: Contract<S>,
  value: unknown,
): ValidationResult<z.output<S>> {
  const result = contract.schema.safeParse(value);
  const warnings = unknownKeyWarnings(contract, value);
  return result.success
    ? { ok: true, value: result.data, warnings }
    : { ok: false, issues: issuesFromZod(result.error), warnings };
}

/** Validates a decoded value and returns the parsed form, or throws a ValidationError listing every issue. */
export function parseContract<S extends z.ZodType>(contract: Contract<S>, value: unknown): z.output<S> {
  const result = checkValue(contract, value);
  if (!result.ok) throw new ValidationError(contract.kind, result.issues);
  return result.value;
}

/** Decodes a file's text by the contract's format, then validates it. Syntax errors are issues too. */
export function checkText<S extends z.ZodType>(
  contract: Contract<S>,
  text: string,
): ValidationResult<z.output<S>> {
  const decoded = decodeText(contract, text);
  if ("issues" in decoded) return { ok: false, issues: decoded.issues, warnings: [] };
  return checkValue(contract, decoded.value);
}

/** A file's text decoded by the contract's format (JSON, TOML or the text extractor), or why it cannot be. */
export function decodeText(contract: Contract, text: string): { value: unknown } | { issues: Issue[] } {
  switch (contract.format) {
    case "json":
      try {
        return { value: JSON.parse(text) };
      } catch (cause) {
        return {
          issues: [
            { path: "$", code: "invalid_json", message: `not valid JSON: ${(cause as Error).message}` },
          ],
        };
      }
    case "toml":
      try {
        return { value: parseToml(text) };
      } catch (cause) {
        const where = cause instanceof TomlError ? ` (line ${cause.line}, column ${cause.column})` : "";
        const first = (cause as Error).message.split("\n")[0];
        return { issues: [{ path: "$", code: "invalid_toml", message: `not valid TOML${where}: ${first}` }] };
      }
    case "text":
      if (!contract.decodeText) throw new Error(`contract ${contract.kind} is text but has no decodeText`);
      return contract.decodeText(text);
  }
}

/** The JSON Schema (draft 2020-12) of what a contract accepts as input. */
export function toJsonSchema(contract: Contract): Record<string, unknown> {
  const schema = z.toJSONSchema(contract.shape ?? contract.schema, {
    io: "input",
    unrepresentable: "any",
    target: "draft-2020-12",
  });
  return {
    ...schema,
    $id: `https://ironclaw.dev/schemas/${contract.kind}.schema.json`,
    title: contract.title,
    description: contract.description,
    "x-ironclaw-seed": contract.seed,
    "x-ironclaw-format": contract.format,
  };
}
