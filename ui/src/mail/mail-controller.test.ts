import { describe, expect, it } from "vitest";
import type { PendingMailSend, PendingMailSends } from "../api/mail-endpoints.js";
import { fakeApi, ok, refused } from "../testing/fake-api.js";
import { createMailController } from "./mail-controller.js";

const ID = "send_AbCdEfGhIjKlMnOp";
const send: PendingMailSend = {
  id: ID,
  to: ["bob@example.test"],
  subject: "Dinner plans",
  text: "Thursday at eight?\n",
  truncated: false,
  draft_uid: 7,
  created_at: "2026-11-28T05:00:00.000Z",
  expires_at: "2026-11-28T06:00:00.000Z",
};

/** A fake warden holding one pending send: a confirmation sends it once, a cancellation drops it. */
function warden(mail: PendingMailSends["mail"] = "ready") {
  let state = mail;
  let sends = [send];
  const { client, calls } = fakeApi({
    "GET /api/integrations/mail/sends": () => ok({ mail: state, sends: state === "ready" ? sends : [] }),
    "POST /api/integrations/mail/sends/:id/confirm": (args) => {
      const id = (args.params as { id: string }).id;
      if (!sends.some((s) => s.id === id))
        return refused(404, "not_found", `no pending send ${id} of yours (expired, done or cancelled?)`);
      sends = sends.filter((s) => s.id !== id);
      return ok({ message_id: "<m1@example.test>", to: send.to });
    },
    "POST /api/integrations/mail/sends/:id/cancel": (args) => {
      const id = (args.params as { id: string }).id;
      sends = sends.filter((s) => s.id !== id);
      return ok({ id, cancelled: true as const });
    },
    "PUT /api/secrets/:name": (args) => {
      state = "ready";
      const name = (args.params as { name: string }).name;
      return ok({ name, created_at: send.created_at, updated_at: send.created_at });
    },
  });
  return { client, calls };
}

describe("the mail controller", () => {
  it("shows the pending send with its text, sends it on confirmation and says to whom", async () => {
    const { client, calls } = warden();
    const mail = createMailController(client);
    await mail.dispatch({ type: "start" });
    expect(mail.state.outbox?.sends.map((s) => [s.subject, s.text])).toEqual([
      ["Dinner plans", "Thursday at eight?\n"],
    ]);
    await mail.dispatch({ type: "confirm", id: ID });
    expect(calls.find((c) => c.key === "POST /api/integrations/mail/sends/:id/confirm")?.args).toEqual({
      params: { id: ID },
    });
    expect(mail.state.message).toEqual({ level: "info", text: "Sent “Dinner plans” to bob@example.test." });
    expect(mail.state.outbox?.sends).toEqual([]);
    expect(mail.state.busy).toBe(false);
  });

  it("names the warden's refusal of a send that is gone, and drops a send on request", async () => {
    const { client, calls } = warden();
    const mail = createMailController(client);
    await mail.dispatch({ type: "start" });
    await mail.dispatch({ type: "cancel", id: ID });
    expect(mail.state.message?.text).toBe(
      "Dropped “Dinner plans”; nothing was sent. The draft stays in your Drafts.",
    );
    await mail.dispatch({ type: "confirm", id: ID });
    expect(mail.state.message).toEqual({
      level: "error",
      text: `“the mail” was not sent: no pending send ${ID} of yours (expired, done or cancelled?)`,
    });
    expect(calls.filter((c) => c.key === "POST /api/integrations/mail/sends/:id/confirm")).toHaveLength(1);
  });

  it("stores the mail password under MAIL_PASSWORD and never keeps its value", async () => {
    const { client, calls } = warden("needs_password");
    const mail = createMailController(client);
    await mail.dispatch({ type: "start" });
    expect(mail.state.outbox?.mail).toBe("needs_password");
    await mail.dispatch({ type: "set-password", value: "hunter2-mail" });
    expect(calls.find((c) => c.key === "PUT /api/secrets/:name")?.args).toEqual({
      params: { name: "MAIL_PASSWORD" },
      body: { value: "hunter2-mail" },
    });
    expect(mail.state.outbox?.mail).toBe("ready");
    expect(JSON.stringify(mail.state)).not.toContain("hunter2-mail");
  });
});
