import { ProtocolRefusal } from "./byte-reader.js";

/** `work`, or a 408 ProtocolRefusal after `ms`: a peer that stalls holds a warden socket only this long. */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expiry = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProtocolRefusal(`${what} took longer than ${ms} ms`, 408)), ms);
  });
  try {
    return await Promise.race([work, expiry]);
  } finally {
    clearTimeout(timer);
  }
}
