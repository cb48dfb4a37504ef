import { describe, expect, it } from "vitest";
import { MAX_BRAIN_STATE_FILES } from "./protocol-brain-state.js";
import { protocolMessageSchema } from "./protocol-message.js";

const header = { user_id: "u-1", session_id: "cell", msg_id: 3, timestamp: "2026-03-14T09:12:03Z" };
const issues = (value: unknown) => {
  const result = protocolMessageSchema.safeParse(value);
  return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};
const HEX = "ab".repeat(32);
const answer = (state: Record<string, unknown>) => ({
  type: "QueryResult",
  ...header,
  reply_to: 3,
  answer: { kind: "brain_state", db_snapshot_sha256: `sha256:${HEX}`, files: [], ...state },
});

describe("a brain's state on the protocol", () => {
  it("asks with a brain_state query and accepts a report of files and the database's hash", () => {
    expect(issues({ type: "QueryRequest", ...header, query: { kind: "brain_state" } })).toEqual([]);
    expect(issues(answer({ files: [{ path: "notes/plan.md", sha256: HEX, size_bytes: 12 }] }))).toEqual([]);
  });

  it("refuses a file path that leaves the brain, naming the field", () => {
    expect(issues(answer({ files: [{ path: "../x.md", sha256: HEX, size_bytes: 1 }] }))).toEqual([
      "answer.files.0.path: must not contain a .. segment",
    ]);
    expect(issues(answer({ files: [{ path: "/etc/x.md", sha256: HEX, size_bytes: 1 }] }))).toEqual([
      "answer.files.0.path: must be relative to the brain, not absolute",
    ]);
  });

  it("refuses malformed hashes, sizes and extra fields", () => {
    expect(issues(answer({ files: [{ path: "a.md", sha256: "AB", size_bytes: -1 }] }))).toEqual([
      "answer.files.0.sha256: must be 64 lowercase hex characters (a sha256)",
      "answer.files.0.size_bytes: must be a non-negative integer",
    ]);
    expect(issues(answer({ db_snapshot_sha256: HEX }))).toEqual([
      "answer.db_snapshot_sha256: must be sha256: followed by 64 lowercase hex",
    ]);
    expect(
      issues(answer({ files: [{ path: "a.md", sha256: HEX, size_bytes: 1, content: "x" }] })),
    ).toHaveLength(1);
  });

  it("refuses a report of more files than the cap", () => {
    const files = Array.from({ length: MAX_BRAIN_STATE_FILES + 1 }, (_, i) => ({
      path: `f${i}.md`,
      sha256: HEX,
      size_bytes: 0,
    }));
    expect(issues(answer({ files }))).toEqual([
      `answer.files: must list at most ${MAX_BRAIN_STATE_FILES} files`,
    ]);
  });
});
