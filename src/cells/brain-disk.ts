import { createHash, randomBytes } from "node:crypto";
import { chmod, lchown, lstat, mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { runProgram, runProgramViaHelper } from "../core/index.js";
import { ensureBrainDir } from "./brain-dir.js";
import { type BrainSeed, CellStartError } from "./cell.js";

/**
 * A user's brain as a disk: `users/<uid>/brain.ext4`, a sparse ext4 image made on first start from a freshly
 * laid-out brain. Its fixed size is the user's disk quota: a guest that fills it gets ENOSPC, not the host.
 * New brains are sparse copies of a template made once per size and seed (users/.templates/), which takes
 * a few milliseconds where laying out a brain and mkfs take tens.
 */
export async function ensureBrainDisk(
  userDir: string,
  sizeMiB: number,
  seed: BrainSeed = {},
  options: { fromDir?: string } = {},
): Promise<{ file: string; created: boolean }> {
  const file = join(userDir, "brain.ext4");
  const existing = await lstat(file).catch(() => undefined);
  // QEMU opens the disk read-write and follows links: a link here would hand the guest its target as a disk.
  if (existing && !existing.isFile()) {
    throw new CellStartError(
      `${file} is ${existing.isSymbolicLink() ? "a symbolic link" : "not a regular file"}: a brain disk must be a real file; move it away and start again`,
    );
  }
  if (existing) return { file, created: false };
  const tmp = `${file}.tmp`;
  // mkfs -F and cp write through a link; a leftover from an earlier attempt is removed, never followed.
  await rm(tmp, { force: true });
  if (options.fromDir) {
    // A directory brain moving into an image (a bwrap cell under a root warden) is copied as it is.
    await makeBrainDisk(options.fromDir, tmp, sizeMiB);
  } else {
    const template = await ensureTemplate(dirname(userDir), sizeMiB, seed);
    const spare = await rename(spareOf(template), tmp).then(
      () => true,
      () => false,
    );
    if (!spare) {
      const copy = await copySparse(template, tmp);
      if (!copy.ok) {
        await rm(tmp, { force: true });
        throw new CellStartError(`copying the brain template ${template} failed: ${copy.stderr.trim()}`);
      }
    }
    // Made after this start, not during it: the next new user's brain is then a rename.
    void refillSpare(template);
  }
  // The whole brain, readable by whoever can read the file: its owner (the warden) alone.
  await chmod(tmp, 0o600);
  await rename(tmp, file);
  return { file, created: true };
}

/** --sparse=always: the image's unwritten blocks (most of it, the journal included) stay holes. */
function copySparse(from: string, to: string) {
  return runProgramViaHelper("cp", ["--sparse=always", "--reflink=auto", from, to], 120_000);
}

/*
 * Why a spare. Copying the template is one program and some 30 MB of blocks (3-20 ms measured), on the path
 * of a new user's first message; a copy made beforehand is renamed into place in well under a millisecond.
 * One spare per template waits beside it; two new users at once take it once (rename is atomic) and the
 * other copies.
 */
function spareOf(template: string): string {
  return `${template}.spare`;
}

const refilling = new Map<string, Promise<void>>();

/** Resolves once no spare is being copied: a warden that stops leaves no half-made copy behind. */
export async function settleSpareCopies(): Promise<void> {
  await Promise.allSettled([...refilling.values()]);
}

function refillSpare(template: string): Promise<void> {
  const running = refilling.get(template);
  if (running) return running;
  const copy = copySpare(template).finally(() => refilling.delete(template));
  refilling.set(template, copy);
  return copy;
}

async function copySpare(template: string): Promise<void> {
  const tmp = `${spareOf(template)}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    if ((await copySparse(template, tmp)).ok) await rename(tmp, spareOf(template));
  } catch {
    // No spare: the next new brain is copied from the template, as without one.
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Bumped whenever what a template holds changes (its owners, its mkfs options). */
const TEMPLATE_LAYOUT = 2;

/** The template for brains of this size and seed, made when missing; written aside and renamed into place. */
async function ensureTemplate(usersDir: string, sizeMiB: number, seed: BrainSeed): Promise<string> {
  // The layout's version is part of the key: a template made another way is never reused.
  const key = createHash("sha256")
    .update(JSON.stringify([TEMPLATE_LAYOUT, sizeMiB, seed]))
    .digest("hex")
    .slice(0, 16);
  // A dot name: user ids start with a letter or digit, so no user's directory can be this one.
  const dir = join(usersDir, ".templates");
  const template = join(dir, `brain-${key}.ext4`);
  if (
    await lstat(template).then(
      (t) => t.isFile(),
      () => false,
    )
  )
    return template;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const seedDir = await mkdtemp(join(tmpdir(), "ironclaw-brain-seed-"));
  const tmp = `${template}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const brain = await ensureBrainDir(seedDir, seed);
    await ownByGuest(brain.dir);
    await makeBrainDisk(brain.dir, tmp, sizeMiB);
    await chmod(tmp, 0o600);
    // Two first starts at once may both make one: either is the same template.
    await rename(tmp, template);
    return template;
  } finally {
    await rm(seedDir, { recursive: true, force: true });
    await rm(tmp, { force: true });
  }
}

/**
 * The fresh seed brain, every entry the guest's uid 1000 (mkfs root_owner sets only the root): a backend that
 * checks only the root's owner before handing a brain over then sees the truth. Needs root; without it the
 * files keep the warden's uid, and the microVM's init hands them over at every boot anyway.
 */
async function ownByGuest(dir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  // Our own fresh directory in the host's tmp: nothing in it is a link, and lchown would not follow one.
  const entries = await readdir(dir, { recursive: true });
  for (const entry of ["", ...entries]) await lchown(join(dir, entry), 1000, 1000);
}

/** mkfs.ext4 of `dir` into a new `sizeMiB` image at `file`, owned inside by the guest's uid 1000. */
async function makeBrainDisk(dir: string, file: string, sizeMiB: number): Promise<void> {
  const mkfs = await runProgram(
    "mkfs.ext4",
    ["-q", "-F", "-L", "irc-brain", "-m", "0", "-E", "root_owner=1000:1000", "-d", dir, file, `${sizeMiB}M`],
    120_000,
  );
  if (mkfs.ok) return;
  await rm(file, { force: true });
  const full = /could not allocate|no space|too many|not enough/i.test(mkfs.stderr);
  throw new CellStartError(
    full
      ? `the brain in ${dir} does not fit a ${sizeMiB} MiB brain disk: remove files from it or raise the brain quota`
      : `mkfs.ext4 for the brain disk failed: ${mkfs.stderr.trim()}`,
  );
}
