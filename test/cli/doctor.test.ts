import { describe, expect, it } from "vitest";
import { runIronclaw } from "./run-cli.js";

describe("ironclaw doctor", () => {
  it("reports every probe and the chosen cell backend as JSON", async () => {
    const { code, stdout } = await runIronclaw(["doctor", "--json"]);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      checks: Array<{ name: string; status: string; detail: string; disables?: string }>;
      cellBackend: { backend: string | null; reason: string };
    };
    const names = report.checks.map((c) => c.name);
    expect(names).toEqual([
      "node",
      "sqlite",
      "fts5",
      "sqlite-vec",
      "git",
      "bubblewrap",
      "qemu",
      "kvm",
      "tcg",
      "vhost-vsock",
      "cell limits",
      "cell start",
    ]);
    const byName = Object.fromEntries(report.checks.map((c) => [c.name, c]));
    expect(byName.node?.detail).toContain(process.version);
    expect(byName.fts5?.status).toBe("ok");
    expect(byName["sqlite-vec"]?.status).toBe("ok");
    if (byName.bubblewrap?.status === "ok") {
      for (const limit of [
        "cell memory",
        "cell processes",
        "brain disk quota",
        "workspace",
        "tool processes",
      ])
        expect(byName["cell limits"]?.detail).toContain(limit);
    }
    for (const c of report.checks) if (c.status === "missing") expect(c.disables).toBeTruthy();
    // Run from its sources, the CLI starts cells from them too, and says so.
    expect(byName["cell start"]).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("its sources"),
    });
    expect(report.cellBackend.reason.length).toBeGreaterThan(0);
  });

  it("prints a readable table with the backend choice", async () => {
    const { code, stdout } = await runIronclaw(["doctor"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\[ok {2}\] node {2,}Node\.js v/m);
    expect(stdout).toMatch(/^cell backend \(auto\): /m);
  });
});
