import { type AgentProfile, agentProfileSchema, type SettingChange } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import { draftTomlEdit, looksLikeSecret } from "./config-change.js";
import { unifiedDiff } from "./file-diff.js";

// A proposed change to one of a user's agent profiles (config/agents/<agent>.toml, seed 003 §10.3): "use a
// cheaper model for the research agent". Written into the file's text like a change to ironclawd.toml, checked
// against the profile's schema, and shown as a diff headed with whose brain it is.

export interface ProfileDraft {
  text: string;
  diff: string;
  profile: AgentProfile;
}

/** The brain-relative file of an agent's profile. */
export function profileFile(agent: string): string {
  return `config/agents/${agent}.toml`;
}

/**
 * Checks a change to the profile `agent` of `user` against its text now. Refused with an InvalidInputError
 * naming the key: a value the schema refuses, a renamed profile, a value that looks like a secret, no change.
 */
export function draftProfileChange(
  base: string,
  changes: readonly SettingChange[],
  owner: { user: string; agent: string },
): ProfileDraft {
  const file = profileFile(owner.agent);
  const { text, value } = draftTomlEdit(base, changes, {
    file,
    schema: agentProfileSchema,
    minimumSegments: 1,
    refuse: refuseProfileChange,
  });
  return { text, diff: unifiedDiff(base, text, `${owner.user}'s ${file}`), profile: value };
}

function refuseProfileChange(change: SettingChange, segments: string[]): void {
  if (segments.length === 1 && segments[0] === "name")
    throw new InvalidInputError(
      change.path,
      "renames the profile, which the brain's default_agent and its chats refer to: the person renames it by hand",
    );
  const values = Array.isArray(change.value) ? change.value : [change.value];
  if (values.some((v) => typeof v === "string" && looksLikeSecret(v)))
    throw new InvalidInputError(
      change.path,
      "looks like a secret (a token or a key), which never goes into a profile nor through the agent",
    );
}
