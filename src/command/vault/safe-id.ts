import { pathSafeId } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";

/**
 * Theater and order ids become directory names and branch names (seed 000 §0), so every id the vault takes from
 * a caller is checked against the contracts' path-safe rule before it reaches a path or a git argument.
 */
export function requireSafeId(field: string, value: unknown): string {
  const result = pathSafeId.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidInputError(field, result.error.issues.map((issue) => issue.message).join("; "));
}
