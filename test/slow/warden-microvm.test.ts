import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMicrovmBackend } from "../../src/cells/index.js";
import { requireTestImage } from "../cells/suite-backends.js";
import { reply } from "../support/model-server.js";
import { api, HOST_KEY, readSse, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

const paths = requireTestImage();
let h: WardenHarness;
let call: ReturnType<typeof api>;

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
  call = api(h.url, await h.addUser("vera"));
}, 300_000);
afterAll(async () => {
  await h?.close();
});

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
});
