import { describe, expect, it } from "vitest";
import { describeCellExit, stderrTail } from "./cell-exit.js";

const OOM_STDERR = `
<--- Last few GCs --->
[1:0x6b0e000]     2048 ms: Mark-Compact 383.2 (392.1) -> 382.9 (392.4) MB, 310.1 / 0.0 ms  (average mu = 0.1)

<--- JS stacktrace --->

FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory
----- Native stack trace -----

 1: 0xb78db3 node::OOMErrorHandler(char const*, v8::OOMDetails const&) [/usr/bin/node]
 2: 0xee8300 v8::Utils::ReportOOMFailure(v8::internal::Isolate*, char const*, v8::OOMDetails const&) [/usr/bin/node]
`;

describe("how a cell ended, in words", () => {
  it("keeps node's fatal error and drops its native stack frames", () => {
    const tail = stderrTail(OOM_STDERR);
    expect(tail).toContain(
      "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
    );
    expect(tail).not.toMatch(/0xb78db3|Native stack trace/);
  });

  it("names an out-of-memory abort, a kill and a plain exit", () => {
    const exit = { code: 134, signal: null, requested: false, reason: "channel lost" };
    expect(describeCellExit({ ...exit, stderr: stderrTail(OOM_STDERR) })).toBe(
      "it ran out of memory (exit code 134: FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory)",
    );
    expect(describeCellExit({ ...exit, code: null, signal: "SIGKILL" })).toMatch(
      /^it was killed \(signal SIGKILL; the host ends a cell this way/,
    );
    expect(describeCellExit({ ...exit, code: 1, stderr: "TypeError: x is not a function\n    at run" })).toBe(
      "it stopped (exit code 1: TypeError: x is not a function)",
    );
    expect(describeCellExit({ ...exit, code: 3 })).toBe("it stopped (exit code 3; channel lost)");
  });
});
