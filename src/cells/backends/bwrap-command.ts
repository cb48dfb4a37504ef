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
 * the stage (see bwrap-stage.ts) first binds or mounts each source the cell's uid could not bind itself at a
 * fixed place in the cell's own mount namespace, as root, then bwrap (as the cell's uid) binds from there.
 * The brain always goes through the stage; the package, node and the word table only when they are not
 * public (see isPublicRootDir), since each staged bind is one more program on the start path.
 */
export async function cellCommand(
  command: Omit<BwrapCommand, "brainDir">,
  brain: BwrapBrain | { kind: "slot" },
  root:
    | { owner: { uid: number; gid: number }; cgroupProcs: string[]; workSlot?: boolean; skillsSlot?: boolean }
    | undefined,
  isPublic: (dir: string) => Promise<boolean> = async () => false,
): Promise<CellCommand> {
  if (!root) {
    if (brain.kind !== "dir") throw new Error(`a brain ${brain.kind} needs a root warden to mount it`);
    return buildBwrapArgs({ ...command, brainDir: brain.dir });
  }
  const prefix = nodePrefixOf(command.nodePath ?? process.execPath);
  const staged = async (dir: string | undefined) => dir !== undefined && !(await isPublic(dir));
  const [stagePackage, stageNode, stageEmbeddings] = await Promise.all([
    staged(command.packageRoot),
    staged(prefix),
    staged(command.embeddingsDir),
  ]);
  const sources: StageSource[] = [
    brain.kind === "image"
      ? { name: "brain", source: brain.file, noFollow: true, kind: "image" }
      : brain.kind === "slot"
        ? { name: "brain", source: "", noFollow: true, kind: "slot" }
        : { name: "brain", source: brain.dir, noFollow: true },
    ...(stagePackage ? [{ name: "package" as const, source: command.packageRoot, noFollow: false }] : []),
    ...(stageNode && prefix ? [{ name: "node" as const, source: prefix, noFollow: false }] : []),
    ...(stageEmbeddings && command.embeddingsDir
      ? [{ name: "embeddings" as const, source: command.embeddingsDir, noFollow: false }]
      : []),
    // Empty until attachWork (bwrap-attach-work.ts) binds an order's worktree onto it, seen in the cell too.
    ...(root.workSlot ? [{ name: "work" as const, source: "", noFollow: true, kind: "slot" as const }] : []),
    // The user's skills, read-only from the stage on; a blank cell's are attached at hand-out (bwrap-attach-skills.ts).
    ...skillsSources(command.skillsDir, root.skillsSlot === true),
  ];
  const inner = buildBwrapArgs({
    ...command,
    brainDir: stagedPath("brain"),
    ...(root.workSlot ? { workDir: stagedPath("work") } : {}),
    ...(command.skillsDir || root.skillsSlot ? { skillsDir: stagedPath("skills") } : {}),
    ...(stagePackage ? { packageRoot: stagedPath("package") } : {}),
    ...(stageNode ? { nodePrefixSource: stagedPath("node") } : {}),
    ...(stageEmbeddings ? { embeddingsDir: stagedPath("embeddings") } : {}),
  });
  const wrapped = await stageCommand(sources, root.owner, root.cgroupProcs, inner);
  return { ...wrapped, bwrapArgs: inner.bwrapArgs };
}

function skillsSources(skillsDir: string | undefined, slot: boolean): StageSource[] {
  if (slot) return [{ name: "skills", source: "", noFollow: true, kind: "slot" }];
  return skillsDir ? [{ name: "skills", source: skillsDir, noFollow: true, kind: "readonly" }] : [];
}
