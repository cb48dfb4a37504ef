import { createRequire } from "node:module";
import { Ajv, type ValidateFunction } from "ajv";
import addFormatsModule from "ajv-formats";

// GitHub's own OpenAPI description of api.github.com (the @octokit/openapi package): the GitHub fake checks every
// answer it gives against the response schema GitHub documents for that path, method and status, so the fake
// cannot drift from what the real host sends.

type Json = Record<string, unknown>;
interface Operation {
  responses?: Record<string, Json>;
}

const SPEC_ID = "https://api.github.com/openapi.json";

/** The spec's path templates as patterns, the one with the most literal segments first. */
interface Route {
  template: string;
  pattern: RegExp;
  literals: number;
}

export interface GithubSpec {
  /** Why `body` is not what GitHub answers to `method path` with `status`; undefined when it is. */
  check(method: string, path: string, status: number, body: unknown): string | undefined;
}

let loaded: GithubSpec | undefined;

/** Loads the description once per process (13 MB of JSON; schemas compile on first use). */
export function githubSpec(): GithubSpec {
  loaded ??= load();
  return loaded;
}

function load(): GithubSpec {
  const require = createRequire(import.meta.url);
  const spec = require("@octokit/openapi/generated/api.github.com.json") as {
    paths: Record<string, Record<string, Operation>>;
    components: Json & { responses: Record<string, Json> };
  };
  // OpenAPI 3.0 schemas: `nullable`, `discriminator`, `example` and x- keys are not JSON Schema's own.
  const ajv = new Ajv({ strict: false, validateSchema: false, allErrors: true, discriminator: true });
  const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
  addFormats(ajv);
  ajv.addSchema({ $id: SPEC_ID, components: asJsonSchema(spec.components) });
  const routes: Route[] = Object.keys(spec.paths)
    .map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`),
      literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
    }))
    .sort((a, b) => b.literals - a.literals);
  const compiled = new Map<string, ValidateFunction>();

  const responseOf = (operation: Operation, status: number): Json | undefined => {
    let response = operation.responses?.[String(status)];
    const ref = response?.$ref;
    if (typeof ref === "string") response = spec.components.responses[ref.split("/").at(-1) ?? ""];
    const content = response?.content as Record<string, { schema?: Json }> | undefined;
    return content?.["application/json"]?.schema;
  };

  return {
    check(method, path, status, body) {
      const pathname = path.split("?")[0] ?? path;
      const route = routes.find((r) => r.pattern.test(pathname));
      if (!route) return `${pathname} is not a path of api.github.com`;
      const operation = spec.paths[route.template]?.[method.toLowerCase()];
      if (!operation) return `${method} is not an operation of ${route.template}`;
      const key = `${method} ${route.template} ${status}`;
      let validate = compiled.get(key);
      if (!validate) {
        // GitHub answers errors it does not list for an operation (401, 429) in its general error shape.
        const schema =
          responseOf(operation, status) ??
          (status >= 400 ? { $ref: `#/components/schemas/basic-error` } : undefined);
        if (!schema) return `${key} is not a documented JSON response`;
        // The schema's references point into the spec's components, which were added under SPEC_ID.
        const pointing = JSON.stringify(schema).replaceAll('"#/components/', `"${SPEC_ID}#/components/`);
        validate = ajv.compile(asJsonSchema(JSON.parse(pointing)) as Json);
        compiled.set(key, validate);
      }
      if (validate(body)) return undefined;
      const errors = (validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || "(body)"} ${e.message ?? "is invalid"}`);
      return `${key}: ${errors.join("; ")}`;
    },
  };
}

/**
 * OpenAPI 3.0's `nullable: true` as JSON Schema says it: null joins the type (and the enum), or, beside no type
 * (an allOf or a $ref), the schema becomes "this or null".
 */
function asJsonSchema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asJsonSchema);
  if (typeof value !== "object" || value === null) return value;
  const { nullable, ...rest } = value as Json;
  const out: Json = {};
  for (const [key, child] of Object.entries(
    nullable === undefined || typeof nullable === "boolean" ? rest : value,
  ))
    out[key] = asJsonSchema(child);
  if (nullable !== true) return out;
  if (typeof out.type === "string") {
    out.type = [out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
    return out;
  }
  return { anyOf: [out, { type: "null" }] };
}
