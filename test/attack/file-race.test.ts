import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/model-server.js";
import { api, readSse, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A scripted model drives the agent's real tools in a real bwrap cell, in two conversations of one user at once:
// one runs a bash loop that flips /tmp/workspace/x between a link to a brain folder and a link to the brain's
// read-only config/ (and /tmp/workspace/y between a brain folder and /etc), while also renaming links inside
// the brain (a flood for the brain watcher); the other's turns write through x and read through y. A file tool
// that checks a path and opens it again lands some of those writes in config/ (the control in
// src/core/descriptor-walk.test.ts shows the same probe catching that race); a starving watcher gets the cell
// killed for missed heartbeats with both turns in flight.

const FLIP_SECONDS = 24;
const FLIPPER = `perl -e '
  my $end = time + ${FLIP_SECONDS}; my ($flips, $renames) = (0, 0);
  mkdir "/mnt/brain/notes";
  open(my $fh, ">", "/mnt/brain/notes/passwd") or die; print $fh "brain-copy\\n"; close $fh;
  while (time < $end) {
    for my $t (["/mnt/brain/notes", "x"], ["/mnt/brain/config", "x"], ["/mnt/brain/notes", "y"], ["/etc", "y"]) {
      symlink($t->[0], "/tmp/workspace/$t->[1].tmp") && rename("/tmp/workspace/$t->[1].tmp", "/tmp/workspace/$t->[1]") && $flips++;
    }
    symlink("/mnt/brain/config", "/mnt/brain/notes/l.tmp") && rename("/mnt/brain/notes/l.tmp", "/mnt/brain/notes/flip") && $renames++;
  }
  print "flips=$flips renames=$renames\\n";'`;
const EVIL_CONFIG = 'extra_roots = ["/proc", "/opt"]\n[tools.network]\negress = "allow"\n';

type ChatEvent = Record<string, unknown>;
let h: WardenHarness;
let call: ReturnType<typeof api>;
let writeTurns = 0;

beforeAll(async () => {
  h = await startWardenHarness();
  call = api(h.url, await h.addUser("mallory"));
  h.model.respondWith((body) => {
    const messages = (body.messages ?? []) as Array<{ role: string; content: unknown }>;
    const said = (marker: string) =>
      messages.some((m) => m.role === "user" && String(m.content).includes(marker));
    if (messages.at(-1)?.role === "tool") return reply.text("done");
    if (said("start the flipper"))
      return reply.toolCalls([{ name: "bash", arguments: { command: FLIPPER } }]);
    if (!said("write through the link")) return reply.text("ok");
    const n = ++writeTurns;
    return reply.toolCalls([
      {
        name: "file",
        arguments: { action: "write", path: `/tmp/workspace/x/landed-${n}.toml`, content: EVIL_CONFIG },
      },
      {
        name: "file",
        arguments: { action: "write", path: "/tmp/workspace/x/irowclaw.toml", content: EVIL_CONFIG },
      },
      { name: "file", arguments: { action: "read", path: "/tmp/workspace/y/passwd" } },
      // The control for this side: a write the tool may make does land.
      { name: "file", arguments: { action: "write", path: `/tmp/workspace/fine-${n}.md`, content: "fine" } },
    ]);
  });
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function turn(text: string): Promise<ChatEvent[]> {
  const response = await call("POST", "/api/chat", { text, stream: true });
  expect(response.status).toBe(200);
  return (await readSse(response)).map((e) => e.data as ChatEvent);
}

/** What the brain's config/ holds, read through the brain API (the brain is a disk the cell has mounted). */
async function configState(): Promise<{ names: string[]; toml: string }> {
  const listed = (await (await call("GET", "/api/brain/files?path=config")).json()) as {
    data: { entries: Array<{ path: string }> };
  };
  const toml = (await (await call("GET", "/api/brain/file?path=config/irowclaw.toml")).json()) as {
    data?: { content: string };
  };
  return { names: listed.data.entries.map((e) => e.path), toml: toml.data?.content ?? "(none)" };
}

describe("file tools racing a link flipped by another conversation's bash", () => {
  it("land no write in config/, read nothing outside the roots, and the cell keeps answering the flood", async () => {
    expect((await turn("hello")).at(-1)).toMatchObject({ type: "done", stopReason: "stop" });
    const configBefore = await configState();
    expect(configBefore.names.length).toBeGreaterThan(0);

    const started = Date.now();
    const flipper = turn("start the flipper");
    const tools: ChatEvent[] = [];
    const turnEnds: ChatEvent[] = [];
    let flipperDone = false;
    void flipper.finally(() => {
      flipperDone = true;
    });
    // Let the loop start before the first write; then keep writing until it ends.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    while (!flipperDone) {
      const events = await turn("write through the link");
      tools.push(...events.filter((e) => e.type === "tool"));
      turnEnds.push(events.at(-1) ?? {});
    }
    const flipperEvents = await flipper;
    const raced = Date.now() - started;

    // Positive controls: the flipper ran the whole time and flipped, and the writes were really attempted.
    const flipperTool = flipperEvents.find((e) => e.type === "tool");
    expect(flipperTool).toMatchObject({ tool: "bash", isError: false });
    const flips = Number(/flips=(\d+)/.exec(String(flipperTool?.content))?.[1] ?? 0);
    const renames = Number(/renames=(\d+)/.exec(String(flipperTool?.content))?.[1] ?? 0);
    expect(flips).toBeGreaterThan(1000);
    expect(renames).toBeGreaterThan(100);
    expect(raced).toBeGreaterThanOrEqual(20_000);
    const throughLink = tools.filter(
      (t) => t.tool === "file" && String(t.args).includes("/tmp/workspace/x/"),
    );
    expect(throughLink.length).toBeGreaterThanOrEqual(10);
    const fine = tools.filter((t) => String(t.args).includes("fine-"));
    expect(fine.length).toBeGreaterThan(0);
    expect(fine.every((t) => t.isError === false)).toBe(true);

    // The attack: nothing landed in config/, nothing was read from /etc through the link.
    expect(await configState()).toEqual(configBefore);
    expect(throughLink.filter((t) => t.isError === false)).toEqual([]);
    const reads = tools.filter((t) => String(t.args).includes("/tmp/workspace/y/"));
    expect(reads.length).toBeGreaterThanOrEqual(5);
    expect(reads.filter((t) => /root:/.test(String(t.content)))).toEqual([]);

    // The brain watcher kept up with the flood: both conversations' turns ended normally, none cut by a dead cell.
    expect(flipperEvents.at(-1)).toMatchObject({ type: "done", stopReason: "stop" });
    expect(turnEnds.length).toBeGreaterThanOrEqual(3);
    for (const end of turnEnds) expect(end).toMatchObject({ type: "done", stopReason: "stop" });
    expect((await turn("hello again")).at(-1)).toMatchObject({ type: "done", stopReason: "stop" });
  }, 150_000);
});
