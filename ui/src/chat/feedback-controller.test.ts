import { describe, expect, it } from "vitest";
import { deferred, fakeApi, ok, refused } from "../testing/fake-api.js";
import { createFeedbackController } from "./feedback-controller.js";

const recorded = (seq: number, rating: "up" | "down") =>
  ok({
    session_id: "s1",
    message_seq: seq,
    rating,
    status: rating === "up" ? ("success" as const) : ("failure" as const),
    score: rating === "up" ? 1 : 0,
    event_id: "e1",
    record_id: "r1",
    stored: true,
  });

describe("a thumbs up or down on a chat answer", () => {
  it("sends the chosen thumb with its comment for the answer's entry, then shows it recorded", async () => {
    const { client, calls } = fakeApi({ "POST /api/feedback": () => recorded(4, "down") });
    const f = createFeedbackController(client);
    await f.dispatch({ type: "load", sessionId: "s1" });
    await f.dispatch({ type: "choose", seq: 4, rating: "down" });
    await f.dispatch({ type: "comment", text: "  missed the deadline  " });
    expect(f.state.draft).toMatchObject({ seq: 4, rating: "down", comment: "  missed the deadline  " });
    await f.dispatch({ type: "send" });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.args.body).toEqual({
      session_id: "s1",
      message_seq: 4,
      rating: "down",
      comment: "missed the deadline",
    });
    expect(f.state.draft).toBeNull();
    expect(f.state.recorded[4]).toEqual({ rating: "down", comment: "missed the deadline" });
  });

  it("sends no comment when none was written, and keeps the draft with the reason when refused", async () => {
    let refuse = true;
    const { client, calls } = fakeApi({
      "POST /api/feedback": () =>
        refuse ? refused(404, "not_found", "session s1 not found") : recorded(2, "up"),
    });
    const f = createFeedbackController(client);
    await f.dispatch({ type: "load", sessionId: "s1" });
    await f.dispatch({ type: "choose", seq: 2, rating: "up" });
    await f.dispatch({ type: "send" });
    expect(calls[0]?.args.body).toEqual({ session_id: "s1", message_seq: 2, rating: "up" });
    expect(f.state.draft?.error).toBe("Your feedback was not recorded: session s1 not found");
    expect(f.state.recorded[2]).toBeUndefined();
    refuse = false;
    await f.dispatch({ type: "send" });
    expect(f.state.recorded[2]?.rating).toBe("up");
  });

  it("drops an answer that arrives after another conversation was opened", async () => {
    const slow = deferred<ReturnType<typeof recorded>>();
    const { client } = fakeApi({ "POST /api/feedback": () => slow.promise });
    const f = createFeedbackController(client);
    await f.dispatch({ type: "load", sessionId: "s1" });
    await f.dispatch({ type: "choose", seq: 4, rating: "up" });
    const sending = f.dispatch({ type: "send" });
    expect(f.state.draft?.sending).toBe(true);
    await f.dispatch({ type: "load", sessionId: "s2" });
    slow.resolve(recorded(4, "up"));
    await sending;
    expect(f.state.recorded).toEqual({});
    expect(f.state.sessionId).toBe("s2");
  });
});
