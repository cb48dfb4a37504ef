import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApiClient } from "../api/api-client.js";
import type { RunOrder } from "../api/command-endpoints.js";
import { order, startCommandServer } from "../testing/command-server.js";
import { createRunsController, type RunsController } from "./runs-controller.js";

// The controller against a real HTTP server on a real socket: the command routes and the ledger's event stream
// in their wire formats. Waits poll what the user would see, with a generous ceiling, never a fixed sleep.
const until = (check: () => void) => vi.waitFor(check, { timeout: 5000, interval: 5 });

let server: Awaited<ReturnType<typeof startCommandServer>>;
let runs: RunsController;

beforeEach(async () => {
  server = await startCommandServer();
  runs = createRunsController(createApiClient(fetch, server.base), { base: server.base, minDelayMs: 10 });
});

afterEach(async () => {
  runs.dispose();
  await server.close();
});

describe("starting a run", () => {
  it("with no theater yet, creates one inline, selects it, then has command start the run and opens it", async () => {
    await runs.dispatch({ type: "start" });
    expect(runs.state.theaters).toEqual([]);
    await runs.dispatch({ type: "field", field: "newTheater", value: "demo" });
    await runs.dispatch({ type: "create-theater" });
    expect(runs.state.theaters.map((t) => t.theater_id)).toEqual(["demo"]);
    expect(runs.state.form.theater).toBe("demo");
    await runs.dispatch({ type: "field", field: "objective", value: "  Add a health route " });
    await runs.dispatch({ type: "submit" });
    expect(server.bodiesOf("POST /api/command/chat")).toEqual([
      { theater_hint: "demo", message: "Add a health route", mode: "async" },
    ]);
    expect(server.count("POST /api/runs")).toBe(0);
    expect(runs.state.runs.map((r) => [r.objective, r.theater_id, r.status])).toEqual([
      ["Add a health route", "demo", "OPEN"],
    ]);
    expect(runs.open.id).toBe("run-1");
    expect(runs.open.run?.objective).toBe("Add a health route");
    expect(runs.state.form.objective).toBe("");
  });

  it("shows the started run planned, worked, merged and concluded, each step as the ledger records it", async () => {
    server.theaters.push({ theater_id: "demo", repo_path: "/srv/demo" });
    await runs.dispatch({ type: "start" });
    await runs.dispatch({ type: "field", field: "objective", value: "Add a health route" });
    await runs.dispatch({ type: "submit" });
    await until(() => expect(runs.open.live.state).toBe("online"));
    expect(runs.open.run?.orders).toEqual([]);

    // The run's order list as GET /api/runs/{id} gives it, at each order's status.
    const planned = (first: RunOrder["status"], second = first): RunOrder[] => [
      { order_id: "o1", status: first, key: "route" },
      { order_id: "o2", status: second, key: "test" },
    ];
    server.changeRun("run-1", { orders: planned("QUEUED") });
    server.setOrder(order("o1"));
    server.setOrder(order("o2"));
    server.push("run-1", "ORDER_CREATED", 1, { order_id: "o1" });
    server.push("run-1", "ORDER_CREATED", 1, { order_id: "o2" });
    await until(() => expect(Object.keys(runs.open.orders).sort()).toEqual(["o1", "o2"]));
    expect(runs.open.run?.orders.map((o) => o.key)).toEqual(["route", "test"]);

    server.changeRun("run-1", { orders: planned("RUNNING", "QUEUED") });
    server.setOrder(order("o1", { status: "RUNNING", branch: "order_o1", worktree_state: "READY" }));
    server.push("run-1", "ORDER_STARTED", 1, { order_id: "o1" });
    await until(() => expect(runs.open.orders.o1?.branch).toBe("order_o1"));
    expect(runs.open.run?.orders[0]?.status).toBe("RUNNING");

    const done = (id: string, sha: string) =>
      order(id, { status: "COMPLETED", integration_state: "INTEGRATED", commit_sha: sha });
    server.setOrder(done("o1", "1111111"));
    server.setOrder(done("o2", "2222222"));
    const reply = "Done: 2 of 2 orders completed and integrated.";
    server.changeRun("run-1", {
      status: "COMPLETE",
      summary: reply,
      orders: planned("COMPLETED"),
    });
    server.push("run-1", "INTEGRATED", 1, { order_id: "o1", payload: { commit_sha: "1111111" } });
    server.push("run-1", "INTEGRATED", 1, { order_id: "o2", payload: { commit_sha: "2222222" } });
    server.push("run-1", "RUN_COMPLETED", 1, { payload: { summary: reply } });
    await until(() => expect(runs.open.run?.status).toBe("COMPLETE"));
    await until(() => expect(runs.open.orders.o2?.commit_sha).toBe("2222222"));
    expect(runs.open.orders.o1?.commit_sha).toBe("1111111");
    expect(runs.open.run?.summary).toBe(reply);
    expect(runs.state.runs[0]?.status).toBe("COMPLETE");
  });

  it("puts each problem the warden names under its field, and the rest above the form", async () => {
    server.theaters.push({ theater_id: "demo", repo_path: "/srv/demo" });
    await runs.dispatch({ type: "start" });
    server.refuse("POST /api/command/chat", {
      status: 400,
      code: "validation_failed",
      message: "$.body.theater_hint: must not start with - or . (and 1 more)",
      issues: [
        { path: "$.body.theater_hint", message: "must not start with - or ." },
        { path: "$.body.message", message: "must be at most 4000 characters" },
      ],
    });
    await runs.dispatch({ type: "field", field: "objective", value: "x".repeat(5000) });
    await runs.dispatch({ type: "submit" });
    expect(runs.state.startRefusal).toEqual({
      fields: {
        theater: "theater_hint: must not start with - or .",
        objective: "message: must be at most 4000 characters",
      },
      message: null,
    });
    expect(runs.open.id).toBeNull();
    server.refuse("POST /api/theaters", {
      status: 400,
      code: "validation_failed",
      message: "the theater is not valid",
      issues: [
        { path: "$.repo_path", message: "must be inside the theaters folder" },
        { path: "$.owner", message: "is not known" },
      ],
    });
    await runs.dispatch({ type: "field", field: "newTheater", value: "other" });
    await runs.dispatch({ type: "field", field: "repoPath", value: "/etc" });
    await runs.dispatch({ type: "create-theater" });
    expect(runs.state.theaterRefusal?.fields).toEqual({
      repoPath: "repo_path: must be inside the theaters folder",
    });
    expect(runs.state.theaterRefusal?.message).toBe("the theater is not valid $.owner: is not known");
  });

  it("places a refusal that names its field in the message (forbidden, not invalid) under that field", async () => {
    server.refuse("POST /api/theaters", {
      status: 403,
      code: "forbidden",
      message: "body.repo_path: only an admin names a repository outside theaters/",
    });
    await runs.dispatch({ type: "field", field: "newTheater", value: "demo" });
    await runs.dispatch({ type: "field", field: "repoPath", value: "/srv/elsewhere" });
    await runs.dispatch({ type: "create-theater" });
    expect(runs.state.theaterRefusal).toEqual({
      fields: { repoPath: "repo_path: only an admin names a repository outside theaters/" },
      message: null,
    });
  });

  it("does not ask the warden while a field it can check is wrong", async () => {
    await runs.dispatch({ type: "start" });
    await runs.dispatch({ type: "submit" });
    expect(runs.state.startRefusal?.fields).toEqual({
      theater: "Choose the theater the run works in.",
      objective: "Say what the run should achieve.",
    });
    await runs.dispatch({ type: "field", field: "newTheater", value: "has space" });
    await runs.dispatch({ type: "create-theater" });
    expect(runs.state.theaterRefusal?.fields.newTheater).toMatch(/no spaces or slashes/);
    expect(server.count("POST /api/command/chat") + server.count("POST /api/theaters")).toBe(0);
  });
});

describe("an open run", () => {
  beforeEach(() => {
    server.addRun("run-1", "demo", "Add a health route", [
      { order_id: "o1", status: "QUEUED", key: "health" },
    ]);
    server.setOrder(order("o1"));
  });

  it("follows the ledger from the snapshot's position and shows each order as its events arrive", async () => {
    await runs.dispatch({ type: "start" });
    await runs.dispatch({ type: "open", id: "run-1" });
    await until(() => expect(runs.open.live.state).toBe("online"));
    expect(server.requests).toContain("GET /api/ledger/events?follow=true&run_id=run-1&after=1");
    expect(runs.open.orders.o1?.status).toBe("QUEUED");
    server.setOrder(
      order("o1", {
        ...{ status: "COMPLETED", branch: "order/o1", worktree_state: "ARCHIVED" },
        ...{ integration_state: "INTEGRATED", commit_sha: "a1b2c3d" },
      }),
    );
    server.changeRun("run-1", { status: "COMPLETE", orders: [{ order_id: "o1", status: "COMPLETED" }] });
    server.push("run-1", "INTEGRATED", 1, { order_id: "o1", payload: { commit_sha: "a1b2c3d" } });
    await until(() => expect(runs.open.orders.o1?.commit_sha).toBe("a1b2c3d"));
    expect(runs.open.run?.status).toBe("COMPLETE");
    expect(runs.open.orders.o1).toMatchObject({ branch: "order/o1", worktree_state: "ARCHIVED" });
    expect(runs.state.runs.find((r) => r.run_id === "run-1")?.status).toBe("COMPLETE");
  });

  it("shows what a failed gate printed: from the ledger on opening, and live as it happens", async () => {
    const failed = { reason: "gate command npm test exited 1", output_tail: "1 failing: health route" };
    server.push("run-1", "INTEGRATION_FAILED", 1, { order_id: "o1", payload: failed });
    await runs.dispatch({ type: "open", id: "run-1" });
    expect(runs.open.gates.o1).toEqual({ reason: failed.reason, output: failed.output_tail });
    await until(() => expect(server.streamCount()).toBe(1));
    const again = { reason: "gate command npm run lint timed out", output_tail: "" };
    server.push("run-1", "INTEGRATION_FAILED", 1, { order_id: "o1", payload: again });
    await until(() => expect(runs.open.gates.o1?.reason).toBe(again.reason));
  });

  it("resumes after a dropped stream from the last event it received, and catches up at once", async () => {
    await runs.dispatch({ type: "open", id: "run-1" });
    await until(() => expect(server.streamCount()).toBe(1));
    const last = server.push("run-1", "ORDER_CLAIMED", 3);
    await until(() => expect(server.count("GET /api/runs/run-1")).toBeGreaterThan(1));
    server.dropStreams();
    await until(() =>
      expect(server.requests).toContain(`GET /api/ledger/events?follow=true&run_id=run-1&after=${last}`),
    );
    await until(() => expect(runs.open.live.state).toBe("online"));
    server.changeRun("run-1", { orders: [{ order_id: "o1", status: "RUNNING" }] });
    server.setOrder(order("o1", { status: "RUNNING", branch: "order/o1" }));
    server.push("run-1", "ORDER_STARTED", 1, { order_id: "o1" });
    await until(() => {
      expect(runs.open.orders.o1?.branch).toBe("order/o1");
      expect(runs.open.run?.orders[0]?.status).toBe("RUNNING");
    });
  });

  it("asks for the snapshot once more however many events come while one request is on its way", async () => {
    await runs.dispatch({ type: "open", id: "run-1" });
    await until(() => expect(server.streamCount()).toBe(1));
    server.hold();
    server.push("run-1", "ORDER_CLAIMED");
    await until(() => expect(server.held()).toBe(1));
    const last = server.push("run-1", "ORDER_HEARTBEAT", 50);
    // A cut stream resuming at the burst's end proves the client read all of it before the answer came.
    server.dropStreams();
    await until(() =>
      expect(server.requests).toContain(`GET /api/ledger/events?follow=true&run_id=run-1&after=${last}`),
    );
    await until(() => expect(runs.open.live.state).toBe("online"));
    server.release();
    await until(() => expect(server.count("GET /api/runs/run-1")).toBe(3));
    await runs.dispatch({ type: "close" });
    expect(server.count("GET /api/runs/run-1")).toBe(3);
  });

  it("stops following, with the warden's reason, when the stream is refused for good", async () => {
    server.refuse("GET /api/ledger/events", { status: 403, code: "forbidden", message: "not your run" });
    await runs.dispatch({ type: "open", id: "run-1" });
    await until(() =>
      expect(runs.open.live).toEqual({ state: "stopped", text: "Live updates stopped: not your run" }),
    );
    expect(server.count("GET /api/ledger/events?follow=true&run_id=run-1&after=1")).toBe(1);
  });

  it("cancels the run and shows it cancelled; a refused cancel says why", async () => {
    server.refuse("POST /api/runs/run-1/cancel", {
      status: 409,
      code: "conflict",
      message: "the run is complete",
    });
    await runs.dispatch({ type: "open", id: "run-1" });
    await runs.dispatch({ type: "cancel-run" });
    expect(runs.state.message).toEqual({
      level: "error",
      text: "Run run-1 could not be cancelled: the run is complete",
    });
    server.accept("POST /api/runs/run-1/cancel");
    await runs.dispatch({ type: "cancel-run" });
    expect(runs.open.run?.status).toBe("CANCELLED");
    expect(runs.state.message?.level).toBe("info");
  });
});
