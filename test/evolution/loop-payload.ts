/** A batch without ids (the receiver derives them from the bytes): one session started and its feedback. */
export function loopPayload(prefix: string, index: number): Buffer {
  const session = { session_id: `${prefix}-${index}`, task: `task ${index}` };
  return Buffer.from(
    JSON.stringify({
      contract_name: "openclaw_appleseed.runtime_event",
      contract_version: "1.0",
      source: "loop",
      events: [
        { event_kind: "session_started", ...session },
        { event_kind: "session_feedback", ...session, status: "success", score: (index % 11) / 10 },
      ],
    }),
  );
}
