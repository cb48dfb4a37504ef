import { describe, expect, it } from "vitest";
import {
  buildBwrapArgs,
  DEFAULT_BWRAP_LIMITS,
  encodeBwrapArgs,
} from "../../src/cells/backends/bwrap-args.js";

const command = {
  packageRoot: "/home/ada/ironclaw",
  packageParts: ["package.json", "dist", "node_modules"],
  brainDir: "/home/ada/.ironclaw/users/ada/brain",
  nodeArgs: ["/opt/ironclaw/dist/inmate/irowclaw.js", "--channel", "stdio"],
  limits: { ...DEFAULT_BWRAP_LIMITS, shmMiB: 8, workspaceMiB: 64 },
  allowNetwork: false,
  env: { SOME_TOKEN: "s3cret-value" },
  nodePath: "/home/ada/.nvm/versions/node/v24.1.0/bin/node",
  embeddingsDir: "/home/ada/.ironclaw/embeddings",
  toolSandbox: true,
};

/** The value after each occurrence of an option, in order. */
function valuesOf(args: string[], option: string, width = 1): string[][] {
  const found: string[][] = [];
  args.forEach((arg, i) => {
    if (arg === option) found.push(args.slice(i + 1, i + 1 + width));
  });
  return found;
}

describe("bwrap arguments", () => {
  it("puts no host path and no environment value on the command line, only in the fd-3 options", () => {
    const { file, args, bwrapArgs } = buildBwrapArgs(command);
    const argv = [file, ...args].join(" ");
    for (const hidden of ["/home/ada", "s3cret-value", "SOME_TOKEN", ".nvm"])
      expect(argv).not.toContain(hidden);
    expect(args.slice(args.indexOf("bwrap"))).toEqual([
      "bwrap",
      "--args",
      "3",
      "--",
      "/opt/node/bin/node",
      "/opt/ironclaw/dist/inmate/irowclaw.js",
      "--channel",
      "stdio",
    ]);
    // The options still say all of it, where only bwrap reads them.
    expect(valuesOf(bwrapArgs, "--setenv", 2)).toContainEqual(["SOME_TOKEN", "s3cret-value"]);
    expect(valuesOf(bwrapArgs, "--ro-bind", 2)).toContainEqual([
      "/home/ada/.nvm/versions/node/v24.1.0",
      "/opt/node",
    ]);
  });

  it("binds only the runtime's parts of the package, and the word table as IRONCLAW_HOME/embeddings", () => {
    const binds = valuesOf(buildBwrapArgs(command).bwrapArgs, "--ro-bind", 2);
    expect(binds.filter(([, target]) => target?.startsWith("/opt/ironclaw"))).toEqual([
      ["/home/ada/ironclaw/package.json", "/opt/ironclaw/package.json"],
      ["/home/ada/ironclaw/dist", "/opt/ironclaw/dist"],
      ["/home/ada/ironclaw/node_modules", "/opt/ironclaw/node_modules"],
      ["/home/ada/.ironclaw/embeddings", "/opt/ironclaw/embeddings"],
    ]);
    expect(valuesOf(buildBwrapArgs(command).bwrapArgs, "--setenv", 2)).toContainEqual([
      "IRONCLAW_HOME",
      "/opt/ironclaw",
    ]);
  });

  it("makes /dev read-only except a sized /dev/shm, and holds /tmp and the workspace in one sized tmpfs", () => {
    const { bwrapArgs } = buildBwrapArgs(command);
    const text = bwrapArgs.join(" ");
    expect(text).toContain(`--size ${8 * 1024 * 1024} --tmpfs /dev/shm --remount-ro /dev`);
    expect(text).toContain(`--size ${64 * 1024 * 1024} --tmpfs /tmp --dir /tmp/workspace`);
    expect(valuesOf(bwrapArgs, "--tmpfs")).toEqual([["/dev/shm"], ["/tmp"]]);
  });

  it("tells the runtime to sandbox its tools, with config/ and db/ read-only for them", () => {
    const env = valuesOf(buildBwrapArgs(command).bwrapArgs, "--setenv", 2);
    expect(env).toContainEqual(["IRONCLAW_TOOL_SANDBOX", "bwrap"]);
    expect(env).toContainEqual(["IRONCLAW_TOOL_READONLY", "/mnt/brain/config:/mnt/brain/db"]);
    const without = valuesOf(buildBwrapArgs({ ...command, toolSandbox: false }).bwrapArgs, "--setenv", 2);
    expect(without.map(([name]) => name)).not.toContain("IRONCLAW_TOOL_SANDBOX");
  });

  it("encodes the options as bwrap's --args reads them, and refuses a NUL inside one", () => {
    expect(encodeBwrapArgs(["--chdir", "/tmp"]).toString("utf8")).toBe("--chdir\0/tmp\0");
    expect(() => encodeBwrapArgs(["--setenv", "A", "x\0y"])).toThrow(/a bwrap argument holds a NUL byte/);
  });
});
