import { describe, expect, it } from "vitest";
import { completeRuntimeEvent, type EventIdentity, toEnvelopes } from "./event-completion.js";
import { runtimeEventEnvelopeSchema } from "./runtime-envelope.js";
import type { RuntimeEvent } from "./runtime-event.js";
import { type RuntimeEventPayload, runtimeEventPayloadSchema } from "./runtime-payload.js";

const NOW = new Date("2026-03-13T18:30:00.000Z");

/** A fixed clock and UUIDs numbered in the order they are drawn. */
function identity(): EventIdentity & { drawn: () => number; clockReads: () => number } {
  let ids = 0;
  let reads = 0;
  return {
    now: () => {
      reads += 1;
      return NOW;
    },
    newId: () => {
      ids += 1;
      return `00000000-0000-4000-8000-${String(ids).padStart(12, "0")}`;
    },
    drawn: () => ids,
    clockReads: () => reads,
  };
}

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

const started: RuntimeEvent = {
  event_kind: "session_started",
  session_id: "demo-session-001",
  task: "review postgres migration rollback safety",
};

const feedback: RuntimeEvent = {
  event_kind: "session_feedback",
  session_id: "demo-session-001",
  task: "review postgres migration rollback safety",
  status: "failure",
  score: 0.2,
};

const header = {
  contract_name: "openclaw_appleseed.runtime_event",
  contract_version: "1.0",
  source: "openclaw-local",
} as const;

const parse = (value: unknown): RuntimeEventPayload => runtimeEventPayloadSchema.parse(value);

describe("completeRuntimeEvent", () => {
  it("fills schema_version, event_id and occurred_at when the runtime omitted them", () => {
    expect(completeRuntimeEvent(started, identity())).toEqual({
      ...started,
      schema_version: "1.1",
      event_id: id(1),
      occurred_at: "2026-03-13T18:30:00.000Z",
    });
  });

  it("keeps the values the runtime sent and generates nothing", () => {
    const ids = identity();
    const given = {
      ...feedback,
      schema_version: "1.1" as const,
      event_id: "7d4f2fda-36bc-4c47-b1d3-dc1cb8ef04e0",
      occurred_at: "2026-03-13T18:22:39+00:00",
    };
    expect(completeRuntimeEvent(given, ids)).toEqual(given);
    expect(ids.drawn()).toBe(0);
    expect(ids.clockReads()).toBe(0);
  });

  it("does not change the event it was given", () => {
    const event = { ...started };
    completeRuntimeEvent(event, identity());
    expect(event).toEqual(started);
  });

  it("gives the same result for the same identity source", () => {
    expect(completeRuntimeEvent(feedback, identity())).toEqual(completeRuntimeEvent(feedback, identity()));
  });
});

describe("toEnvelopes", () => {
  it("completes a single envelope, keeping its recorded_at and metadata", () => {
    const envelope = { ...header, recorded_at: "2026-03-13T18:22:41+00:00", metadata: { operator: "ana" } };
    const out = toEnvelopes(parse({ ...envelope, event: feedback }), identity());
    expect(out).toEqual([
      {
        ...envelope,
        envelope_id: id(1),
        event: {
          ...feedback,
          schema_version: "1.1",
          event_id: id(2),
          occurred_at: "2026-03-13T18:30:00.000Z",
        },
      },
    ]);
  });

  it("records an envelope that carries no recorded_at at the payload's time, keeping unnamed keys", () => {
    const out = toEnvelopes(
      parse({ ...header, trace_id: "t-7", event: { ...started, lane: "ops" } }),
      identity(),
    );
    expect(out[0]).toMatchObject({ recorded_at: NOW.toISOString(), trace_id: "t-7", event: { lane: "ops" } });
  });

  it("gives an envelope without metadata an empty metadata object", () => {
    const out = toEnvelopes(
      parse({ ...header, recorded_at: "2026-03-13T18:22:41Z", event: started }),
      identity(),
    );
    expect(out[0]?.metadata).toEqual({});
  });

  it("completes each envelope of a list in order, drawing the envelope id before the event id", () => {
    const list = [
      { ...header, recorded_at: "2026-03-13T18:20:01Z", event: started },
      {
        ...header,
        envelope_id: "9b1f66ae-5f44-47f8-a1a9-bd5f84d22b70",
        recorded_at: "2026-03-13T18:22:41Z",
        event: feedback,
      },
    ];
    const out = toEnvelopes(parse(list), identity());
    expect(out.map((e) => [e.envelope_id, e.event.event_id, e.event.event_kind])).toEqual([
      [id(1), id(2), "session_started"],
      ["9b1f66ae-5f44-47f8-a1a9-bd5f84d22b70", id(3), "session_feedback"],
    ]);
  });

  it("turns a batch into one envelope per event with the batch header and metadata on each", () => {
    const batch = {
      ...header,
      metadata: { operator: "local-demo", tags: ["demo"] },
      events: [started, feedback],
    };
    const out = toEnvelopes(parse(batch), identity());
    expect(out).toHaveLength(2);
    for (const envelope of out) {
      expect(envelope).toMatchObject({
        ...header,
        metadata: batch.metadata,
        recorded_at: "2026-03-13T18:30:00.000Z",
      });
    }
    expect(out.map((e) => e.event.event_kind)).toEqual(["session_started", "session_feedback"]);
  });

  it("gives each batch envelope its own copy of the metadata", () => {
    const out = toEnvelopes(
      parse({ ...header, metadata: { tags: ["demo"] }, events: [started, feedback] }),
      identity(),
    );
    const [first, second] = out;
    if (!first || !second) throw new Error("expected two envelopes");
    (first.metadata.tags as string[]).push("changed");
    expect(second.metadata).toEqual({ tags: ["demo"] });
  });

  it("reads the clock once per payload so every generated time is the same", () => {
    const ids = identity();
    const out = toEnvelopes(parse({ ...header, events: [started, feedback, started] }), ids);
    expect(ids.clockReads()).toBe(1);
    expect(new Set(out.flatMap((e) => [e.recorded_at, e.event.occurred_at]))).toEqual(
      new Set(["2026-03-13T18:30:00.000Z"]),
    );
  });

  it("is deterministic for an injected clock and id source", () => {
    const batch = parse({ ...header, events: [started, feedback] });
    expect(toEnvelopes(batch, identity())).toEqual(toEnvelopes(batch, identity()));
  });

  it("produces envelopes that are valid per-event envelopes themselves", () => {
    const out = toEnvelopes(
      parse({ ...header, metadata: { operator: "x" }, events: [started, feedback] }),
      identity(),
    );
    for (const envelope of out) expect(runtimeEventEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });
});
