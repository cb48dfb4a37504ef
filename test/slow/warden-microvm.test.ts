import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createMicrovmBackend } from "../../src/cells/index.js";
import { requireTestImage } from "../cells/suite-backends.js";
import { reply } from "../support/model-server.js";
import { skillArchive } from "../support/skill-archive.js";
import { api, HOST_KEY, readSse, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

const paths = requireTestImage();
let h: WardenHarness;
let call: ReturnType<typeof api>;
let veraToken: string;

beforeAll(async () => {
  h = await startWardenHarness({
    backend: createMicrovmBackend({
      paths,
      accel: "auto",
      allowTcg: true,
      memoryMiB: 384,
      brainDiskMiB: 64,
      onWarning: () => {},
    }),
  });
  veraToken = await h.addUser("vera");
  call = api(h.url, veraToken);
}, 300_000);
afterAll(async () => {
  await h?.close();
});
// A test that fails leaves its unused replies behind: the next would be answered with them.
beforeEach(() => h.model.reset());

describe("the warden with microVM cells", () => {
  it("answers a chat turn that calls a tool from a microVM: the model is reached only through the warden, with the host's key", async () => {
    h.model.enqueue(
      reply.toolCalls([{ name: "bash", arguments: { command: "env; echo probe-ran" } }]),
      reply.text("Checked from the VM.", { chunks: 2 }),
    );
    const response = await call("POST", "/api/chat", { text: "check your environment", stream: true });
    const events = (await readSse(response)).map((e) => e.data as Record<string, unknown>);
    const tool = events.find((e) => e.type === "tool");
    expect(String(tool?.content)).toContain("probe-ran");
    expect(String(tool?.content)).toContain("PATH=");
    expect(String(tool?.content)).not.toContain(HOST_KEY);
    expect(events.at(-1)).toMatchObject({ type: "done", text: "Checked from the VM.", stopReason: "stop" });
    const chats = h.model.requests.filter((r) => r.path.endsWith("/chat/completions"));
    expect(chats.length).toBe(2);
    for (const r of chats) expect(r.headers.authorization).toBe(`Bearer ${HOST_KEY}`);
    expect(h.warden.context.cellBackend.name).toBe("microvm");
  }, 300_000);

  it("keeps the session's history in the VM's brain disk across a cell restart", async () => {
    h.model.enqueue(reply.text("Noted."));
    const first = (await (
      await call("POST", "/api/chat", { text: "remember: the gate code is 2580" })
    ).json()) as {
      data: { session_id: string };
    };
    h.model.enqueue(reply.text("It is 2580."));
    await h.warden.context.cells.stop("vera");
    const again = (await (
      await call("POST", `/api/sessions/${first.data.session_id}/messages`, {
        text: "what is the gate code?",
      })
    ).json()) as {
      data: { text: string };
    };
    expect(again.data.text).toBe("It is 2580.");
    const sent = (h.model.chatRequests().at(-1)?.messages ?? []).map((m) => String(m.content ?? ""));
    expect(sent).toContain("remember: the gate code is 2580");
  }, 300_000);

  it("suspends an idle cell to disk and resumes it for the next message, tools and history included", async () => {
    h.model.enqueue(reply.text("Noted the locker."));
    const first = (await (await call("POST", "/api/chat", { text: "remember: locker 41" })).json()) as {
      data: { session_id: string };
    };
    // What the idle timer does, without waiting for it.
    await h.warden.context.cells.manager.stop("vera", "idle");
    expect(h.warden.context.cells.running("vera")).toBeUndefined();
    const admin = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
    const stateOfVera = async () => {
      const answer = (await (await admin("GET", "/api/admin/cells")).json()) as {
        data: { cells: Array<{ user: string; state: string }> };
      };
      return answer.data.cells.find((c) => c.user === "vera")?.state;
    };
    expect(await stateOfVera()).toBe("suspended");
    h.model.enqueue(
      reply.toolCalls([{ name: "bash", arguments: { command: "echo resumed-tool-ran" } }]),
      reply.text("Locker 41."),
    );
    const response = await call("POST", `/api/sessions/${first.data.session_id}/messages`, {
      text: "which locker?",
      stream: true,
    });
    const events = (await readSse(response)).map((e) => e.data as Record<string, unknown>);
    expect(String(events.find((e) => e.type === "tool")?.content)).toContain("resumed-tool-ran");
    expect(events.at(-1)).toMatchObject({ type: "done", text: "Locker 41." });
    expect(h.warden.context.cells.running("vera")?.resumed).toBe(true);
    expect(await stateOfVera()).toBe("running");
    const sent = (h.model.chatRequests().at(-1)?.messages ?? []).map((m) => String(m.content ?? ""));
    expect(sent).toContain("remember: locker 41");
  }, 300_000);

  it("shows the VM its user's installed skills on a read-only disk: listed in the prompt, readable, not writable", async () => {
    const SKILL = "---\nname: weather\ndescription: Forecasts.\n---\nUse the forecast service.\n";
    const scratch = await mkdtemp(join(tmpdir(), "ironclaw-microvm-skill-"));
    try {
      const archive = await skillArchive(scratch, "weather", { "SKILL.md": SKILL });
      const reviewed = await fetch(`${h.url}/api/skills/review?filename=weather.tgz`, {
        method: "POST",
        headers: { authorization: `Bearer ${veraToken}`, "content-type": "application/octet-stream" },
        body: archive,
      });
      expect(reviewed.status).toBe(200);
      const { data } = (await reviewed.json()) as { data: { sha256: string } };
      expect((await call("POST", "/api/skills/install", { sha256: data.sha256 })).status).toBe(200);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    // Skills reach a VM at its start (and a VM saved with other skills boots afresh).
    await h.warden.context.cells.stop("vera");
    h.model.reset();
    h.model.enqueue(
      reply.toolCalls([
        { name: "file", arguments: { action: "read", path: "/mnt/skills/weather/SKILL.md" } },
      ]),
      reply.toolCalls([
        {
          name: "bash",
          arguments: {
            command:
              'touch /mnt/skills/planted 2>&1; echo x >> /mnt/skills/weather/SKILL.md 2>&1; mount -o remount,rw /mnt/skills 2>&1 || echo remount-refused; echo "listing: $(ls -A /mnt/skills)"',
          },
        },
      ]),
      reply.text("Sunny."),
    );
    const answer = (await (await call("POST", "/api/chat", { text: "weather?" })).json()) as {
      data: { text: string };
    };
    expect(answer.data.text).toBe("Sunny.");
    const [first, second, third] = h.model.chatRequests();
    expect(String(first?.messages[0]?.content)).toContain(
      "<name>weather</name><description>Forecasts.</description><location>/mnt/skills/weather/SKILL.md</location>",
    );
    expect(second?.messages.at(-1)).toMatchObject({ role: "tool", content: SKILL });
    const shell = String(third?.messages.at(-1)?.content);
    expect(shell).toContain("Read-only file system");
    expect(shell).toContain("remount-refused");
    expect(shell).toContain("touch: /mnt/skills/planted: Read-only file system");
    expect(shell).toContain("\nlisting: weather\n");
  }, 300_000);
});
