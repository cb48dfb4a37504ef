import { describe, expect, it } from "vitest";
import type { CertificateDetail, CertifiedTurn } from "../api/endpoints.js";
import { fakeApi, ok, refused } from "../testing/fake-api.js";
import { createCertificateController } from "./certificate-controller.js";

const JOB = "0fee20be-ba80-4a13-8fde-941b9de8fbc7";
const turn = (seq: number, job = JOB): CertifiedTurn => ({
  job_id: job,
  session_id: "s1",
  timestamp: "2026-11-27T12:00:00.000Z",
  seq,
  node_id: "f69f5307-9895-46db-ac9c-6913333e4db4",
});
const detail: CertificateDetail = {
  certificate: { job_id: JOB, request_hash: "sha256:aa" },
  proof: { key_id: "sha256:bb" },
  verify: { ok: true, checks: [{ check: "signature", status: "pass", reason: "" }] },
};

describe("a chat message's certificate", () => {
  it("knows which replies of the conversation are certified, and shows one with its checks", async () => {
    const { client, calls } = fakeApi({
      "GET /api/attest/certificates": () => ok({ total: 1, certificates: [turn(4)] }),
      "GET /api/attest/certificates/:job_id": () => ok(detail),
    });
    const c = createCertificateController(client);
    await c.dispatch({ type: "load", sessionId: "s1" });
    expect(calls[0]?.args.query).toEqual({ session: "s1", limit: 200 });
    expect(Object.keys(c.state.bySeq)).toEqual(["4"]);

    await c.dispatch({ type: "show", seq: 3 });
    expect(c.state.shown).toBeNull();
    await c.dispatch({ type: "show", seq: 4 });
    expect(calls.at(-1)?.args.params).toEqual({ job_id: JOB });
    expect(c.state.shown?.detail?.verify.ok).toBe(true);
    expect(c.state.shown?.turn.node_id).toBe("f69f5307-9895-46db-ac9c-6913333e4db4");
    await c.dispatch({ type: "close" });
    expect(c.state.shown).toBeNull();
  });

  it("follows a turn that just ended until its certificate is listed, and names its reply", async () => {
    let polls = 0;
    const { client } = fakeApi({
      "GET /api/attest/certificates": () => {
        polls++;
        const certificates =
          polls >= 4 ? [turn(8, "b40cb4d0-0000-4000-8000-000000000000"), turn(4)] : [turn(4)];
        return ok({ total: certificates.length, certificates });
      },
    });
    const c = createCertificateController(client, { pollMs: 0 });
    await c.dispatch({ type: "load", sessionId: "s1" });
    await expect(c.dispatch({ type: "follow", sessionId: "s1" })).resolves.toBe(8);
    expect(Object.keys(c.state.bySeq).sort()).toEqual(["4", "8"]);
  });

  it("gives up following after its polls, and says why a certificate could not load", async () => {
    const { client, calls } = fakeApi({
      "GET /api/attest/certificates": () => ok({ total: 1, certificates: [turn(4)] }),
      "GET /api/attest/certificates/:job_id": () => refused(404, "not_found", "job_id x not found"),
    });
    const c = createCertificateController(client, { pollMs: 0, polls: 3 });
    await c.dispatch({ type: "load", sessionId: "s1" });
    await expect(c.dispatch({ type: "follow", sessionId: "s1" })).resolves.toBeUndefined();
    expect(calls).toHaveLength(4);
    await c.dispatch({ type: "show", seq: 4 });
    expect(c.state.shown?.error).toBe("The certificate could not load: job_id x not found");
  });

  it("drops a conversation's list that arrives after another was opened", async () => {
    const answers: Record<string, CertifiedTurn[]> = { s1: [turn(4)], s2: [] };
    let release = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { client } = fakeApi({
      "GET /api/attest/certificates": async (args) => {
        const session = (args.query as { session: string }).session;
        if (session === "s1") await slow;
        return ok({ total: 0, certificates: answers[session] ?? [] });
      },
    });
    const c = createCertificateController(client);
    const first = c.dispatch({ type: "load", sessionId: "s1" });
    await c.dispatch({ type: "load", sessionId: "s2" });
    release();
    await first;
    expect(c.state.bySeq).toEqual({});
  });
});
