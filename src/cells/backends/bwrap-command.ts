import { type BwrapCommand, buildBwrapArgs, nodePrefixOf } from "./bwrap-args.js";
import type { BwrapBrain } from "./bwrap-brain.js";
import { type StageSource, stageCommand, stagedPath } from "./bwrap-stage.js";

/** What the backend spawns: a program, its arguments, and the bwrap options it must write to fd 3. */
export interface CellCommand {
  file: string;
  args: string[];
  bwrapArgs: string[];
}

/**
 * The whole command of one cell. Without root, bwrap binds from the host paths itself. Under a root warden,
 * the stage (see bwrap-stage.ts) first binds or mounts every source at a fixed place in the cell's own mount
 * namespace, as root, then bwrap (as the cell's uid) binds from there.
 */
export async function cellCommand(
  command: Omit<BwrapCommand, "brainDir">,
  brain: BwrapBrain,
  root: { owner: { uid: number; gid: number }; cgroupProcs: string[] } | undefined,
): Promise<CellCommand> {
  if (!root) {
    if (brain.kind !== "dir") throw new Error("a brain image needs a root warden to mount it");
    return buildBwrapArgs({ ...command, brainDir: brain.dir });
  }
  const prefix = nodePrefixOf(command.nodePath ?? process.execPath);
  const sources: StageSource[] = [
    brain.kind === "image"
      ? { name: "brain", source: brain.file, noFollow: true, kind: "image" }
      : { name: "brain", source: brain.dir, noFollow: true },
    { name: "package", source: command.packageRoot, noFollow: false },
    ...(prefix ? [{ name: "node" as const, source: prefix, noFollow: false }] : []),
    ...(command.embeddingsDir
      ? [{ name: "embeddings" as const, source: command.embeddingsDir, noFollow: false }]
      : []),
  ];
  const inner = buildBwrapArgs({
    ...command,
    brainDir: stagedPath("brain"),
    packageRoot: stagedPath("package"),
    ...(prefix ? { nodePrefixSource: stagedPath("node") } : {}),
    ...(command.embeddingsDir ? { embeddingsDir: stagedPath("embeddings") } : {}),
  });
  const staged = await stageCommand(sources, root.owner, root.cgroupProcs, inner);
  return { ...staged, bwrapArgs: inner.bwrapArgs };
}
