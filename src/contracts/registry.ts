import { parse as parseToml, TomlError } from "smol-toml";
import { z } from "zod";
import { type Issue, issuesFromZod, ValidationError } from "../core/index.js";

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
  /** Only for `text` contracts: extracts the value to validate, or returns issues when there is none. */
  decodeText?: (text: string) => { value: unknown } | { issues: Issue[] };
}

export function defineContract<S extends z.ZodType>(contract: Contract<S>): Contract<S> {
  return contract;
}

export type ValidationResult<T> = { ok: true; value: T } | { ok: false; issues: Issue[] };

/** Validates a decoded value; never throws for bad input. */
export function checkValue<S extends z.ZodType>(
  contract: Contract<S>,
  value: unknown,
): ValidationResult<z.output<S>> {
  const result = contract.schema.safeParse(value);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, issues: issuesFromZod(result.error) };
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
  if ("issues" in decoded) return { ok: false, issues: decoded.issues };
  return checkValue(contract, decoded.value);
}

function decodeText(contract: Contract, text: string): { value: unknown } | { issues: Issue[] } {
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
  const schema = z.toJSONSchema(contract.schema, {
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
