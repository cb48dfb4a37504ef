import { describe, expect, it } from "vitest";
import { chooseCellBackend, debugExitFirmware, probeAccelerator, runProgram } from "../../src/cells/index.js";

const qemu = await runProgram("qemu-system-x86_64", ["--version"]);

describe("accelerator probe", () => {
  it("places the reset vector jump at the top of a 64 KiB firmware", () => {
    const image = debugExitFirmware();
    expect(image.length).toBe(65536);
    expect([...image.subarray(0xfff0, 0xfff3)]).toEqual([0xe9, 0x0d, 0xf0]);
  });

  it.skipIf(!qemu.ok)("sees guest protected-mode code run under TCG", async () => {
    const probe = await probeAccelerator("tcg", 20_000);
    expect(probe).toEqual({ accel: "tcg", usable: true, detail: "a guest vCPU ran protected-mode code" });
  });

  if (!qemu.ok) console.warn("skipping the TCG probe test: qemu-system-x86_64 is not installed on this host");
});

describe("auto cell backend", () => {
  const none = { kvmUsable: false, qemuMicrovm: false, tcgUsable: false, bwrapUsable: false };

  it("prefers a microVM when KVM really runs guests", () => {
    expect(
      chooseCellBackend({ ...none, kvmUsable: true, qemuMicrovm: true, bwrapUsable: true }).backend,
    ).toBe("microvm");
  });

  it("uses bubblewrap over TCG unless TCG is allowed", () => {
    const host = { ...none, qemuMicrovm: true, tcgUsable: true, bwrapUsable: true };
    expect(chooseCellBackend(host).backend).toBe("bwrap");
    const tcg = chooseCellBackend(host, { allowTcg: true });
    expect(tcg.backend).toBe("microvm");
    expect(tcg.warning).toContain("software emulation");
  });

  it("never picks the process backend unless it is allowed", () => {
    expect(chooseCellBackend(none).backend).toBeNull();
    const chosen = chooseCellBackend(none, { allowProcess: true });
    expect(chosen.backend).toBe("process");
    expect(chosen.warning).toContain("does not isolate");
  });
});
