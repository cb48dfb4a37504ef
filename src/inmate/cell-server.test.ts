import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { pipePair } from "../../test/support/pipe-pair.js";
import { ProtocolPeer } from "../channel/protocol-peer.js";
import { serveCell } from "./cell-server.js";
import { createEchoDevHandler } from "./echo-handler.js";

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

/** A blank cell served over a pipe; the warden's end speaks as the pool's stand-in until it hands the cell out. */
async function blankCell() {
  const brain = await mkdtemp(join(tmpdir(), "ironclaw-blank-cell-"));
  await writeFile(join(brain, "note.md"), "# Note\n");
  const [host, guest] = pipePair();
  const builds: string[] = [];
  const served = serveCell(
    guest,
    async () => {
      builds.push("built");
      return createEchoDevHandler();
    },
    { userId: "pool-1", brainRoot: brain, blank: true, heartbeatMs: 0 },
  );
  const warden = new ProtocolPeer(host, { userId: "pool-1", sessionId: "warden", heartbeatMs: 0 });
  cleanups.push(async () => {
    warden.close();
    await served;
    await rm(brain, { recursive: true, force: true });
  });
  return { warden, builds };
}

describe("a blank cell", () => {
  it("takes no work and builds no handler before the warden's Hello names its user", async () => {
    const { warden, builds } = await blankCell();
    const early = await warden.call({ type: "FileOpRequest", op: "list", path: "." });
    expect(early).toMatchObject({
      type: "Error",
      code: "forbidden",
      message: expect.stringContaining("no user yet"),
    });
    expect(builds).toEqual([]);
  });

  it("becomes the named user's cell at Hello and refuses every other user from then on", async () => {
    const { warden, builds } = await blankCell();
    warden.adoptUser("ada");
    const ready = await warden.call({ type: "Hello", providers: [] });
    expect(ready).toMatchObject({ type: "Ready", user_id: "ada" });
    expect(builds).toEqual(["built"]);
    const listing = await warden.call({ type: "FileOpRequest", op: "list", path: "." });
    expect(listing).toMatchObject({ type: "FileOpResult", user_id: "ada" });
    expect(JSON.stringify(listing)).toContain("note.md");
    // A second Hello for someone else changes nothing: the cell is ada's for good.
    const other = await warden.call({ type: "Hello", user_id: "bob", providers: [] });
    expect(other).toMatchObject({ type: "Error", code: "forbidden", message: "wrong user" });
    const again = await warden.call({ type: "FileOpRequest", user_id: "bob", op: "list", path: "." });
    expect(again).toMatchObject({ type: "Error", code: "forbidden" });
  });
});
