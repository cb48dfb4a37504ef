// A microVM cell suspended to disk and resumed, beside its cold start in the same run: each handler's cell
// starts cold (new user) to its first reply, then is suspended and resumed a few times, each resume timed from
// the start call to its first reply, the way a user's message after an idle suspend meets it. Resumes are
// timed at once and after the host sat idle for a while: a restore fills fresh host memory with the guest's,
// and on a virtual machine whose hypervisor takes back memory the guest freed (free page reporting), fresh
// memory costs many times more to touch a few seconds after it was freed than at once.
import { stat } from "node:fs/promises";
import { join } from "node:path";
import type { CellBackend, CellHandle, CellStartSpec } from "../../src/cells/index.js";
import { percentile } from "../percentile.js";

type GuestHandlerName = NonNullable<CellStartSpec["handler"]>;

export interface ResumeFigures {
  handler: GuestHandlerName;
  coldToFirstReplyMs: number;
  suspendMs: number;
  stateMiB: number;
  resumeToFirstReplyMs: number;
  /** The same, resumed after the host sat idle for `idleMs` since the suspend. */
  idleResumeToFirstReplyMs: number;
  idleMs: number;
  runs: number;
}

async function firstReply(cell: CellHandle): Promise<void> {
  const reply = await cell.call({ type: "FileOpRequest", op: "list", path: "." }, { timeoutMs: 120_000 });
  if (reply.type !== "FileOpResult") throw new Error(`the cell answered ${reply.type}`);
}

export async function measureMicrovmResume(
  backend: CellBackend,
  usersDir: string,
  handler: GuestHandlerName,
  runs = 3,
  idleMs = 10_000,
): Promise<ResumeFigures> {
  const spec = { userId: `resume-${handler}`, userDir: join(usersDir, `resume-${handler}`), handler };
  let started = performance.now();
  let cell = await backend.start({ ...spec, startTimeoutMs: 180_000 });
  await firstReply(cell);
  const coldToFirstReplyMs = performance.now() - started;
  const suspends: number[] = [];
  const resumes: number[] = [];
  const idleResumes: number[] = [];
  let stateMiB = 0;
  try {
    for (let i = 0; i < 2 * runs; i++) {
      started = performance.now();
      const exit = await cell.suspend?.();
      if (exit?.reason !== "suspended")
        throw new Error("the cell was not suspended (does the image have its resume helper?)");
      suspends.push(performance.now() - started);
      stateMiB = (await stat(join(spec.userDir, "cell.state"))).size / 1048576;
      const idle = i % 2 === 1;
      if (idle) await new Promise((r) => setTimeout(r, idleMs));
      started = performance.now();
      cell = await backend.start(spec);
      await firstReply(cell);
      (idle ? idleResumes : resumes).push(performance.now() - started);
      if (!cell.resumed) throw new Error("the cell booted instead of resuming");
    }
  } finally {
    await cell.stop();
  }
  return {
    handler,
    coldToFirstReplyMs,
    suspendMs: percentile(suspends, 50),
    stateMiB,
    resumeToFirstReplyMs: percentile(resumes, 50),
    idleResumeToFirstReplyMs: percentile(idleResumes, 50),
    idleMs,
    runs,
  };
}
