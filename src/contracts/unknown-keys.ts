import { z } from "zod";
import { isJsonObject } from "./common.js";

type Path = Array<string | number>;

/**
 * The keys of a value that no object of its schema names, as paths (`["events", 1, "priority"]`). The seeds
 * close none of their objects, so inbound schemas accept such keys and keep them; this says where they are, so
 * that `ironclaw validate` can warn about them (a typo such as `scor` shows up here) and `--strict` refuse them.
 *
 * Works on any value, valid or not: a union member is chosen by its discriminator, or else as the first member
 * the value satisfies, and nothing is reported under a union none of whose members fits. Records and `unknown`
 * are free-form by definition and have no unknown keys.
 */
export function findUnknownKeys(schema: z.core.$ZodType, value: unknown): Path[] {
  const found: Path[] = [];
  walk(schema, value, [], found);
  return found;
}

function walk(schema: z.core.$ZodType, value: unknown, path: Path, found: Path[]): void {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case "object":
      if (!isJsonObject(value)) return;
      for (const [key, member] of Object.entries(value)) {
        const known = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
        if (known) walk(known, member, [...path, key], found);
        else if (isOpenCatchall(def.catchall)) found.push([...path, key]);
        else if (def.catchall) walk(def.catchall, member, [...path, key], found);
      }
      return;
    case "array":
      if (Array.isArray(value))
        for (const [i, item] of value.entries()) walk(def.element, item, [...path, i], found);
      return;
    case "record":
      if (isJsonObject(value))
        for (const [key, member] of Object.entries(value)) walk(def.valueType, member, [...path, key], found);
      return;
    case "union": {
      const member = chooseMember(def, value);
      if (member) walk(member, value, path, found);
      return;
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "nonoptional":
    case "readonly":
    case "catch":
      if (value !== undefined && value !== null) walk(def.innerType, value, path, found);
      return;
    case "pipe":
      // A transform at the head of a pipe only picks the form (see runtime-payload.ts); the shape is after it.
      walk((def.in as z.core.$ZodTypes)._zod.def.type === "transform" ? def.out : def.in, value, path, found);
      return;
    case "lazy":
      walk(def.getter(), value, path, found);
      return;
    default:
      return;
  }
}

/** An object whose catchall is unknown or any keeps extra keys without checking them: a loose object. */
function isOpenCatchall(catchall: z.core.$ZodType | undefined): boolean {
  if (catchall === undefined) return true;
  const type = (catchall as z.core.$ZodTypes)._zod.def.type;
  return type === "unknown" || type === "any";
}

function chooseMember(def: z.core.$ZodUnionDef, value: unknown): z.core.$ZodType | undefined {
  const discriminator = (def as Partial<z.core.$ZodDiscriminatedUnionDef>).discriminator;
  if (discriminator !== undefined && isJsonObject(value)) {
    const tag = value[discriminator];
    const tagged = def.options.find((o) => o._zod.propValues?.[discriminator]?.has(tag as never));
    if (tagged) return tagged;
  }
  return def.options.find((o) => z.safeParse(o, value).success);
}
