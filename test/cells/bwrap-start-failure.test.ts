import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { explainStartFailure } from "../../src/cells/backends/start-failure.js";
import { CellStartError, createBwrapBackend, defaultRuntime } from "../../src/cells/index.js";
import { SUITE_BACKENDS } from "./suite-backends.js";

const unavailable = SUITE_BACKENDS.bwrap?.().unavailable;

describe.skipIf(unavailable !== undefined)("a bwrap cell that cannot start", () => {
  let home = "";
  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "ironclaw-bwrap-fail-"));
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it("says why on its first line, from bwrap's own words, with the detail after it", async () => {
    const missing = "/usr/bin/ironclaw-test-no-such-node";
    const backend = createBwrapBackend({ runtime: defaultRuntime(), nodePath: missing });
    const error = await backend
      .start({ userId: "gus", userDir: join(home, "users", "gus"), handler: "echo" })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(CellStartError);
    const [first, ...rest] = (error as Error).message.split("\n");
    expect(first).toMatch(
      new RegExp(`^bwrap cell for gus did not start: bwrap: execvp ${missing}: No such file or directory$`),
    );
    expect(rest.join("\n")).toContain(missing);
  }, 60_000);
});

describe("the first line of a bwrap start failure", () => {
  const failure = (tail: string) =>
    new CellStartError(
      `bwrap cell for ada did not start: the process exited (1) before the first Heartbeat\n${tail}`,
    );

  it("names the tool's reason and what to do when user namespaces are disabled", () => {
    const explained = explainStartFailure(
      failure("bwrap: No permissions to creating new namespace, likely because the kernel does not allow it"),
    );
    const [first] = explained.message.split("\n");
    expect(first).toBe(
      "bwrap cell for ada did not start: bwrap: No permissions to creating new namespace, likely because the kernel does not allow it — unprivileged user namespaces are disabled on this host: allow them (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone) or use the microvm backend",
    );
    expect(explained).toBeInstanceOf(CellStartError);
  });

  it("keeps the first line as it was when no tool said why", () => {
    const explained = explainStartFailure(failure("some guest output"));
    expect(explained.message.split("\n")[0]).toBe(
      "bwrap cell for ada did not start: the process exited (1) before the first Heartbeat",
    );
  });
});
