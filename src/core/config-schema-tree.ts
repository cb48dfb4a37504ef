import type { z } from "zod";

/**
 * A config schema as a reader sees it: tables, maps of tables (`[providers.<name>]`) and keys, each with the
 * description, default and examples the schema carries. Built from zod's own definitions, so a key added to
 * a schema shows up in every file rendered from it without anyone listing it again.
 */
export type ConfigNode = ConfigKey | ConfigTable | ConfigMap;

interface NodeBase {
  name: string;
  description?: string;
  /** `.meta({ examples })`: shown where the schema has no default. */
  examples: unknown[];
}

export interface ConfigKey extends NodeBase {
  kind: "key";
  /** Present when the schema fills the key in itself (`.default(…)`). */
  default?: { value: unknown };
  /** Neither optional nor defaulted: a file (or a map entry) without it is refused. */
  required: boolean;
  /** A key declared only to refuse it (`z.never()`), such as an inline secret: not something a reader can set. */
  refused: boolean;
}

export interface ConfigTable extends NodeBase {
  kind: "table";
  /** An optional table is absent unless written; a table with a default is always there. */
  optional: boolean;
  children: ConfigNode[];
}

export interface ConfigMap extends NodeBase {
  kind: "map";
  /** The table or map every entry is, named by its placeholder (`<name>`, or the schema's `x-key`). */
  entry: ConfigTable | ConfigMap;
}

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  defaultValue?: unknown;
}

const defOf = (schema: z.ZodType): ZodDef => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** Wrappers that change presence or defaults but not what the key holds. */
const WRAPPERS = new Set(["default", "prefault", "optional", "nullable", "readonly", "catch", "nonoptional"]);

interface Unwrapped {
  core: z.ZodType;
  meta: Record<string, unknown>;
  default?: { value: unknown };
  optional: boolean;
}

/** Peels wrappers off a field, keeping the outermost description and examples and the default it declares. */
function unwrap(schema: z.ZodType): Unwrapped {
  const meta: Record<string, unknown> = {};
  let current = schema;
  let found: { value: unknown } | undefined;
  let optional = false;
  let prefaulted = false;
  for (;;) {
    const own = (current as unknown as { meta(): Record<string, unknown> | undefined }).meta() ?? {};
    for (const [k, v] of Object.entries(own)) if (!(k in meta)) meta[k] = v;
    const def = defOf(current);
    if (def.type === "default" && found === undefined) found = { value: def.defaultValue };
    if (def.type === "prefault") prefaulted = true;
    if (def.type === "optional") optional = true;
    const inner = WRAPPERS.has(def.type) ? def.innerType : def.type === "pipe" ? def.in : undefined;
    if (inner === undefined) break;
    current = inner;
  }
  return { core: current, meta, default: found, optional: optional && !prefaulted && found === undefined };
}

function isOptional(schema: z.ZodType): boolean {
  for (let def = defOf(schema); ; ) {
    if (def.type === "optional" || def.type === "default" || def.type === "prefault") return true;
    const inner = WRAPPERS.has(def.type) ? def.innerType : def.type === "pipe" ? def.in : undefined;
    if (inner === undefined) return false;
    def = defOf(inner);
  }
}

/** The config tree of an object schema (a TOML document's root table). */
export function configTree(schema: z.ZodType): ConfigTable {
  const node = toNode("", schema);
  if (node.kind !== "table") throw new TypeError("configTree: the root schema must be an object");
  return node;
}

function toNode(name: string, schema: z.ZodType): ConfigNode {
  const { core, meta, default: fallback, optional } = unwrap(schema);
  const def = defOf(core);
  const description = typeof meta.description === "string" ? meta.description : undefined;
  const examples = Array.isArray(meta.examples) ? meta.examples : [];
  const base = description === undefined ? { name, examples } : { name, description, examples };
  if (def.type === "object") {
    const children = Object.entries(def.shape ?? {}).map(([key, field]) => toNode(key, field));
    return { ...base, kind: "table", optional, children };
  }
  if (def.type === "record" && def.valueType !== undefined) {
    const label = typeof meta["x-key"] === "string" ? meta["x-key"] : "<name>";
    const entry = toNode(label, def.valueType);
    if (entry.kind === "key") throw new TypeError(`configTree: ${name} maps to plain values, not tables`);
    return { ...base, kind: "map", entry };
  }
  const required = !optional && fallback === undefined && !isOptional(schema);
  const key: ConfigKey = { ...base, kind: "key", required, refused: def.type === "never" };
  if (fallback !== undefined) key.default = fallback;
  return key;
}

/**
 * Every key a reader can set, as dotted paths through tables and map placeholders (`server.port`,
 * `providers.<name>.base_url`). Refused keys are left out.
 */
export function configKeyPaths(schema: z.ZodType): string[] {
  const out: string[] = [];
  const walk = (node: ConfigNode, prefix: string[]) => {
    if (node.kind === "key") {
      if (!node.refused) out.push([...prefix, node.name].join("."));
    } else if (node.kind === "table") {
      for (const child of node.children) walk(child, node.name === "" ? prefix : [...prefix, node.name]);
    } else walk(node.entry, [...prefix, node.name]);
  };
  walk(configTree(schema), []);
  return out;
}

/** Tables, maps and keys a reader would see without a description, as dotted paths. */
export function undescribedKeys(schema: z.ZodType): string[] {
  const out: string[] = [];
  const walk = (node: ConfigNode, prefix: string[], isEntry: boolean) => {
    const path = node.name === "" ? prefix : [...prefix, node.name];
    const refused = node.kind === "key" && node.refused;
    if (node.name !== "" && !isEntry && !refused && node.description === undefined) out.push(path.join("."));
    if (node.kind === "table") for (const child of node.children) walk(child, path, false);
    if (node.kind === "map") walk(node.entry, path, true);
  };
  walk(configTree(schema), [], false);
  return out.filter((path) => path !== "");
}
