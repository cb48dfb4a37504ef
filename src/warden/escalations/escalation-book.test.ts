import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TheaterRegistry } from "../../command/index.js";
import { ConflictError, NotFoundError } from "../../core/index.js";
import { SqliteEventStore } from "../../ledger/index.js";
import { EscalationBook } from "./escalation-book.js";

let home: string;
let store: SqliteEventStore;
let book: EscalationBook;

const ids = (theater: string | null, run: string | null, order: string | null = null) => ({
  garrison_id: "local",
  theater_id: theater,
  run_id: run,
  order_id: order,
  unit_id: null,
});
const raise = (event_id: string, at: ReturnType<typeof ids>) =>
  store.append({ ...at, event_id, type: "ESCALATION_RAISED", payload: { severity: "HIGH", reason: "x" } });

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-escalation-book-"));
  store = await SqliteEventStore.open({ path: join(home, "ledger.db") });
  const theaters = new TheaterRegistry(join(home, "theaters"));
  await theaters.add({ theaterId: "demo", owner: "ada" });
  await store.append({
    ...ids("demo", "run_b"),
    type: "RUN_CREATED",
    payload: { user_id: "bea", objective: "x" },
  });
  book = new EscalationBook({ store, theaters, admins: () => ["root"] });
});
afterEach(async () => {
  await store.close();
  await rm(home, { recursive: true, force: true });
});

describe("whose an escalation is", () => {
  it("is the run's user, else the theater's owner, else the host's admins", async () => {
    await raise("e_run", ids("demo", "run_b"));
    await raise("e_theater", ids("demo", null));
    await raise("e_host", ids(null, null));
    expect((await book.list("bea")).map((e) => e.escalation_id)).toEqual(["e_run"]);
    expect((await book.list("ada")).map((e) => e.escalation_id)).toEqual(["e_theater"]);
    expect((await book.list("root")).map((e) => e.escalation_id)).toEqual(["e_host"]);
  });

  it("keeps another user's escalation unknown to them, and lets an admin acknowledge any", async () => {
    await raise("e_run", ids("demo", "run_b"));
    const ada = { userId: "ada", admin: false, channel: "api" };
    await expect(book.get(ada, "e_run")).rejects.toBeInstanceOf(NotFoundError);
    await expect(book.ack(ada, "e_run")).rejects.toBeInstanceOf(NotFoundError);
    const acked = await book.ack({ userId: "root", admin: true, channel: "api" }, "e_run");
    expect(acked.acked).toMatchObject({ by: "root", channel: "api" });
  });
});

describe("acknowledging", () => {
  it("stores one ESCALATION_ACKED when a chat and the API race, and tells the loser who won", async () => {
    await raise("e_run", ids("demo", "run_b", null));
    const results = await Promise.allSettled([
      book.ack({ userId: "bea", admin: false, channel: "telegram:family" }, "e_run"),
      book.ack({ userId: "bea", admin: false, channel: "api" }, "e_run"),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected");
    expect(lost?.status === "rejected" && lost.reason).toBeInstanceOf(ConflictError);
    expect(String(lost?.status === "rejected" && lost.reason.message)).toMatch(
      /^escalation e_run was already acknowledged by bea from (api|telegram:family) at /,
    );
    expect(await store.read({ types: ["ESCALATION_ACKED"] })).toHaveLength(1);
    expect(await book.list("bea", { open: true })).toEqual([]);
  });

  it("closes an escalation acknowledged by another writer that names nobody", async () => {
    await raise("e_host", ids(null, null));
    await store.append({
      ...ids(null, null),
      type: "ESCALATION_ACKED",
      payload: { escalation_id: "e_host" },
    });
    const [view] = await book.list("root");
    expect(view?.acked).toMatchObject({ by: "someone", channel: "the ledger" });
    const [raised] = await store.read({ types: ["ESCALATION_RAISED"] });
    expect(raised && (await book.recipientsOf(raised))).toEqual([]);
  });
});
