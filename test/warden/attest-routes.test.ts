import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashCanonical } from "../../src/core/index.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A chat turn through a real warden becomes a certificate its user can read, check and list, and nobody else
// can: the agent is the real one on a fake cell, the model the scripted server.

let h: WardenHarness;
let ada: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;
let boss: ReturnType<typeof api>;

beforeAll(async () => {
  h = await startWardenHarness({ backend: createFakeCellBackend() });
  ada = api(h.url, await h.addUser("ada"));
  bob = api(h.url, await h.addUser("bob"));
  boss = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
}, 60_000);
afterAll(async () => {
  await h?.close();
});

type Listed = { total: number; certificates: { job_id: string; session_id: string; timestamp: string }[] };

async function listed(call: ReturnType<typeof api>): Promise<Listed> {
  const response = await call("GET", "/api/attest/certificates");
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Listed }).data;
}

describe("/api/attest", () => {
  it("serves a user's turn certificate to them, verified, and to nobody else", async () => {
    h.model.enqueue(reply.text("Hello, Ada."));
    const turn = await ada("POST", "/api/chat", { text: "hello there" });
    expect(turn.status).toBe(200);
    const { data } = (await turn.json()) as { data: { session_id: string } };
    // Certified after the reply went out: wait for it, however long the host takes.
    let mine = await listed(ada);
    while (mine.total === 0) {
      await sleep(50);
      mine = await listed(ada);
    }
    const [first] = mine.certificates;
    expect(first?.session_id).toBe(data.session_id);
    const jobId = first?.job_id as string;

    const own = await ada("GET", `/api/attest/certificates/${jobId}`);
    expect(own.status).toBe(200);
    const shown = (
      (await own.json()) as {
        data: {
          certificate: { job_id: string; request_hash: string };
          proof: { key_id: string };
          verify: { ok: boolean };
        };
      }
    ).data;
    expect(shown.certificate.job_id).toBe(jobId);
    expect(shown.verify.ok).toBe(true);
    // The request as the warden knew it, with the model its proxy saw the cell call.
    expect(shown.certificate.request_hash).toBe(
      hashCanonical({
        messages: [{ role: "user", content: "hello there" }],
        profile: null,
        model: "local/test-model",
        tool_policy: "brain-configured",
        channel: "api",
      }),
    );
    const key = ((await (await ada("GET", "/api/attest/public-key")).json()) as { data: { key_id: string } })
      .data;
    expect(shown.proof.key_id).toBe(key.key_id);

    const foreign = await bob("GET", `/api/attest/certificates/${jobId}`);
    expect(foreign.status).toBe(404);
    expect(JSON.stringify(await foreign.json())).toContain("job_id");
    expect((await listed(bob)).total).toBe(0);
    // A user cannot name another user's folder: ?user= is an admin's.
    const asAda = await bob("GET", `/api/attest/certificates/${jobId}?user=ada`);
    expect(asAda.status).toBe(404);

    // An admin reads anyone's by naming them.
    expect((await boss("GET", `/api/attest/certificates/${jobId}?user=ada`)).status).toBe(200);
    expect((await boss("GET", `/api/attest/certificates/${jobId}`)).status).toBe(404);

    const bad = await ada("GET", "/api/attest/certificates/not-a-job");
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toContain("job_id");
  }, 60_000);
});
