import { Duplex, PassThrough } from "node:stream";

/** Two connected duplex streams, like the two ends of a cell's pipes. */
export function pipePair(): [Duplex, Duplex] {
  const aToB = new PassThrough();
  const bToA = new PassThrough();
  // As duplexOf does for a cell's pipes: a destroyed channel fails them, which is not the test's crash.
  for (const inner of [aToB, bToA]) inner.on("error", () => {});
  const ends: [Duplex, Duplex] = [
    Duplex.from({ readable: bToA, writable: aToB }),
    Duplex.from({ readable: aToB, writable: bToA }),
  ];
  // A peer's close destroys its end, which fails the other end too (Node 24 with an AbortError): an end a test
  // drives by hand has no peer listening for that, and its error must not outlive the test as an uncaught one.
  for (const end of ends) end.on("error", () => {});
  return ends;
}
