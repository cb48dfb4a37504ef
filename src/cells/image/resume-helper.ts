// The cell's resume helper: a microVM restored from its saved memory wakes with the clock it had when it was
// saved, and with the kernel's random generator in the state it was in then. cell-init's control loop runs this
// (as root) when the host says `resume`: it sets the clock to the host's time and mixes the host's fresh bytes
// into the kernel's pool, crediting them, then forces the generator to reseed from that pool at once, so what
// the cell draws next owes nothing to the saved state. Two ioctls and a clock call: busybox has neither, so the
// image build compiles this with the host's C compiler (the one npm used for the native SQLite module).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runProgram } from "../../core/index.js";

const SOURCE = `/* IronClaw cell-resume: cell-resume <unix ms>, entropy as hex on stdin. */
#include <fcntl.h>
#include <linux/random.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_BYTES 256

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: cell-resume <unix ms> < hex-entropy\\n"); return 2; }
  char *end;
  long long ms = strtoll(argv[1], &end, 10);
  if (*end != 0 || ms <= 0) { fprintf(stderr, "cell-resume: bad time %s\\n", argv[1]); return 2; }
  char hex[2 * MAX_BYTES + 2];
  if (!fgets(hex, sizeof hex, stdin)) { fprintf(stderr, "cell-resume: no entropy\\n"); return 2; }
  size_t len = strcspn(hex, "\\n");
  if (len < 64 || len % 2 != 0) { fprintf(stderr, "cell-resume: want 32 to %d bytes of entropy\\n", MAX_BYTES); return 2; }
  struct rand_pool_info *info = malloc(sizeof *info + MAX_BYTES);
  unsigned char *bytes = (unsigned char *)info->buf;
  for (size_t i = 0; i < len / 2; i++) {
    unsigned int b;
    if (sscanf(hex + 2 * i, "%2x", &b) != 1) { fprintf(stderr, "cell-resume: entropy is not hex\\n"); return 2; }
    bytes[i] = (unsigned char)b;
  }
  info->buf_size = (int)(len / 2);
  info->entropy_count = (int)(len / 2 * 8);
  struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };
  if (clock_settime(CLOCK_REALTIME, &ts) != 0) { perror("cell-resume: clock_settime"); return 1; }
  int fd = open("/dev/urandom", O_WRONLY);
  if (fd < 0) { perror("cell-resume: /dev/urandom"); return 1; }
  if (ioctl(fd, RNDADDENTROPY, info) != 0) { perror("cell-resume: RNDADDENTROPY"); return 1; }
  if (ioctl(fd, RNDRESEEDCRNG) != 0) { perror("cell-resume: RNDRESEEDCRNG"); return 1; }
  return 0;
}
`;

export type ResumeHelperResult = { ok: true } | { ok: false; reason: string };

/** Compiles the helper, static (the rootfs carries only the libraries node and the tools link), to `out`. */
export async function buildResumeHelper(out: string): Promise<ResumeHelperResult> {
  const dir = await mkdtemp(join(tmpdir(), "ironclaw-resume-"));
  try {
    const source = join(dir, "cell-resume.c");
    await writeFile(source, SOURCE);
    const cc = process.env.CC ?? "cc";
    const built = await runProgram(cc, ["-O2", "-static", "-Wall", "-Werror", "-o", out, source], 60_000);
    if (!built.ok) {
      const why = built.error ?? (built.stderr.trim().split("\n")[0] || `exit status ${built.code}`);
      return { ok: false, reason: `${cc} could not build the resume helper: ${why}` };
    }
    return { ok: true };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
