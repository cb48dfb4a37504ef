import { secretBindingBodySchema, secretNameSchema } from "../../contracts/index.js";
import type { ProxyBinding } from "../../egress/index.js";
import type { SecretBinding } from "./secret-bindings.js";

/**
 * A skill's declaration that one of the user's secrets may go to a host (`metadata.ironclaw.egress` of an
 * approved SKILL.md), as the skill store hands it over.
 */
export interface SkillSecretDeclaration {
  skill: string;
  host: string;
  secret: string;
  header: string;
  format: string;
  methods?: string[];
  paths?: string[];
}

/** What approved skills ask of the user's secrets; the skill store provides it. */
export interface SkillSecretSource {
  egressDeclarations(userId: string): ReadonlyArray<SkillSecretDeclaration>;
  /** Variables approved skills require (`requires.env`, `primaryEnv`), each named with its skill. */
  requiredEnv?(userId: string): ReadonlyArray<{ skill: string; name: string }>;
}

/**
 * A binding with what the proxy needs to apply it: the placeholder to look for and the value to put instead. The
 * value is never logged, never sent to a cell.
 */
export type ResolvedBinding = ProxyBinding;

/** A secret a cell was not given, and why: the reason is logged, and the UI shows it. */
export interface UnresolvedSecret {
  secretName: string;
  skill?: string;
  host?: string;
  reason: "missing secret" | "unreadable secret" | "invalid declaration";
  /** For an invalid declaration: the field and the rule it broke. */
  problem?: string;
}

/** What a cell is started with: placeholders in its environment, and the bindings its proxy applies. */
export interface CellEgressPlan {
  env: Record<string, string>;
  bindings: ResolvedBinding[];
  unresolved: UnresolvedSecret[];
}

/** A binding from either source, checked, before its secret is looked up. */
export type CandidateBinding = SecretBinding & { skill?: string };

/**
 * The user's own bindings first, then approved skills' declarations, each checked against the same rules as
 * a binding the user makes (a SKILL.md is third-party text). The first binding of a secret to a host and header
 * wins, so a user's choice overrides a skill's for the same place.
 */
export function candidateBindings(
  own: ReadonlyArray<SecretBinding>,
  declared: ReadonlyArray<SkillSecretDeclaration>,
): { candidates: CandidateBinding[]; invalid: UnresolvedSecret[] } {
  const candidates: CandidateBinding[] = [];
  const invalid: UnresolvedSecret[] = [];
  const seen = new Set<string>();
  const add = (binding: CandidateBinding) => {
    const key = `${binding.secretName}\0${binding.host}\0${binding.header.toLowerCase()}`;
    if (seen.has(key)) return;
    seen.add(key);
    candidates.push(binding);
  };
  for (const binding of own) add(binding);
  for (const d of declared) {
    const name = secretNameSchema.safeParse(d.secret);
    const body = secretBindingBodySchema.safeParse({
      host: d.host,
      header: d.header,
      format: d.format,
      ...(d.methods ? { methods: d.methods } : {}),
      ...(d.paths ? { paths: d.paths } : {}),
    });
    if (!name.success || !body.success) {
      const issue = name.success ? body.error?.issues[0] : name.error.issues[0];
      const field = name.success ? (issue?.path.join(".") ?? "") : "secret";
      invalid.push({
        secretName: String(d.secret),
        skill: d.skill,
        host: String(d.host),
        reason: "invalid declaration",
        problem: `${field}: ${issue?.message ?? "is invalid"}`,
      });
      continue;
    }
    add({
      secretName: name.data,
      host: body.data.host,
      header: body.data.header,
      format: body.data.format,
      ...(body.data.methods ? { methods: body.data.methods } : {}),
      ...(body.data.paths ? { paths: body.data.paths } : {}),
      skill: d.skill,
    });
  }
  return { candidates, invalid };
}
