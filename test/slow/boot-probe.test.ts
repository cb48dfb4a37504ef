import { describe, expect, it } from "vitest";
import { imagePaths, probeKernelBoot } from "../../src/cells/index.js";
import { TEST_IMAGE_DIR } from "../cells/suite-backends.js";

describe("kernel boot probe", () => {
  it("boots the image's kernel and initramfs under TCG until the virtio modules are loaded", async () => {
    const probe = await probeKernelBoot(imagePaths(TEST_IMAGE_DIR), "tcg", 120_000);
    expect(probe, probe.detail).toMatchObject({ accel: "tcg", booted: true });
  });
});
