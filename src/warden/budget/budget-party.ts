/**
 * Who a model call is charged to. A call charges several parties at once (the host, its user, the user's agent
 * profile, the cron job it runs for), and a cap may sit on any of them. The key is a plain string so that command's
 * runs and orders (`run:<id>`, with a `total` cap from their `budget_usd`) plug into the same counters and checks.
 */
export type PartyKind = "host" | "user" | "agent" | "job" | "run" | "order";

export interface Party {
  kind: PartyKind;
  /** The user the party belongs to; absent for the host and for runs and orders. */
  user?: string;
  /** The agent profile, job, run or order name. */
  name?: string;
}

/** The periods a party's spend is counted over: days and months for people, a whole lifetime for a run. */
export type Period = "day" | "month" | "total";

export function periodsOf(kind: PartyKind): readonly Period[] {
  return kind === "run" || kind === "order" ? ["total"] : ["day", "month"];
}

/**
 * `host`, `user:alice`, `agent:alice/assistant`, `job:alice/nightly`, `run:01J…`. Names are percent-encoded, so
 * a label with a `/` or `:` cannot pose as another party.
 */
export function partyKey(party: Party): string {
  const part = (s: string | undefined) => encodeURIComponent(s ?? "");
  switch (party.kind) {
    case "host":
      return "host";
    case "user":
      return `user:${part(party.user)}`;
    case "agent":
    case "job":
      return `${party.kind}:${part(party.user)}/${part(party.name)}`;
    default:
      return `${party.kind}:${part(party.name)}`;
  }
}

/** The party in words, for messages: "user alice", "agent assistant of user alice", "this host". */
export function describeParty(party: Party): string {
  switch (party.kind) {
    case "host":
      return "this host";
    case "user":
      return `user ${party.user}`;
    case "agent":
      return `agent ${party.name} of user ${party.user}`;
    case "job":
      return `cron job ${party.name} of user ${party.user}`;
    default:
      return `${party.kind} ${party.name}`;
  }
}

/** The parties one model call of a user is charged to, most specific first (so a refusal names the tightest). */
export function partiesOfCall(call: { userId: string; agent?: string; job?: string }): Party[] {
  const parties: Party[] = [];
  if (call.job) parties.push({ kind: "job", user: call.userId, name: call.job });
  if (call.agent) parties.push({ kind: "agent", user: call.userId, name: call.agent });
  parties.push({ kind: "user", user: call.userId }, { kind: "host" });
  return parties;
}

/** The `ironclaw budget set` flags that name a party, for messages that say how to change a cap. */
export function cliTarget(party: Party): string {
  switch (party.kind) {
    case "host":
      return "--host";
    case "user":
      return `--user ${party.user}`;
    case "agent":
      return `--user ${party.user} --agent ${party.name}`;
    case "job":
      return `--user ${party.user} --job ${party.name}`;
    default:
      return `--${party.kind} ${party.name}`;
  }
}
