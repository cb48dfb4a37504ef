import { randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bundleLocatorSchema, nextTokensSchema, resultJsonSchema } from "../../contracts/index.js";
import { canonicalJson } from "../../core/index.js";
import { sealState } from "./bundle-outputs.js";
import { loadHostWrapKey } from "./host-wrap-key.js";
import { openEnvelope } from "./key-envelope.js";
import { ratchetKey } from "./key-ratchet.js";
import { packState } from "./state-pack.js";
import { unpackState } from "./state-unpack.js";

let home: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-ratchet-"));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

describe("key ratchet and the three output files", () => {
  it("each step's key comes from the previous one, bound to the state id and step", () => {
    const key = randomBytes(32);
    const next = ratchetKey(key, { stateId: "s1", step: 4 });
    expect(next).toHaveLength(32);
    expect(ratchetKey(key, { stateId: "s1", step: 4 })).toEqual(next);
    expect(ratchetKey(key, { stateId: "s2", step: 4 })).not.toEqual(next);
    expect(ratchetKey(key, { stateId: "s1", step: 5 })).not.toEqual(next);
    expect(() => ratchetKey(key, { stateId: "s1", step: -1 })).toThrow(
      /ratchet_step: must be a non-negative/,
    );
    expect(() => ratchetKey(Buffer.alloc(16), { stateId: "s1", step: 0 })).toThrow(/key: must be 32 bytes/);
  });

  it("the host's wrap key is made once, 0600 in a 0700 attest folder, and kept", async () => {
    const first = await loadHostWrapKey(home);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "attest")).mode & 0o777).toBe(0o700);
    expect((await loadHostWrapKey(home)).key).toEqual(first.key);
  });

  it("a sealed state's files pass their contracts; the next step opens the next bundle through its envelope", async () => {
    const wrap = await loadHostWrapKey(home);
    const brain = join(home, "brain");
    mkdirSync(brain);
    writeFileSync(join(brain, "memory.md"), "step 0\n");
    const key0 = randomBytes(32);
    const state0 = randomUUID();
    const out0 = join(home, "bundles", state0);
    const packed = await packState({
      stateDir: brain,
      stateId: state0,
      ratchetStep: 0,
      key: key0,
      outDir: out0,
    });
    const sealed = await sealState({ packed, key: key0, wrap });

    const tokens = nextTokensSchema.parse(readJson(sealed.files.nextTokens));
    expect(tokens).toMatchObject({
      state_cap_next: `artifact://bundles/${state0}/envelopes/state_cap_next.json`,
      net_cap_next: `artifact://bundles/${state0}/envelopes/net_cap_next.json`,
      ratchet: { current_step: 0, next_step: 1 },
    });
    expect(JSON.stringify(tokens)).not.toContain(sealed.nextKey.toString("base64"));
    const locator = bundleLocatorSchema.parse(readJson(sealed.files.locator));
    expect(locator).toMatchObject({
      bundle_sha256: packed.bundleSha256,
      manifest_sha256: packed.manifestSha256,
    });
    expect(resultJsonSchema.parse(readJson(sealed.files.result))).toMatchObject({
      restore_mode: "fresh",
      bundle_sha256: packed.bundleSha256,
    });
    // Canonical bytes, as every JSON file of the evidence folder.
    const raw = readFileSync(sealed.files.result, "utf8");
    expect(raw).toBe(canonicalJson(JSON.parse(raw)));

    const stateCap = readJson(join(out0, "envelopes", "state_cap_next.json"));
    const { key: key1 } = openEnvelope(wrap, stateCap);
    expect(key1).toEqual(ratchetKey(key0, { stateId: state0, step: 0 }));
    expect(() => openEnvelope(wrap, { ...stateCap, ratchet_step: 7 })).toThrow(/altered after it was sealed/);
    expect(() => openEnvelope({ ...wrap, key: randomBytes(32) }, stateCap)).toThrow(
      /altered after it was sealed/,
    );

    writeFileSync(join(brain, "memory.md"), "step 1\n");
    const state1 = randomUUID();
    const out1 = join(home, "bundles", state1);
    const next = await packState({
      stateDir: brain,
      stateId: state1,
      ratchetStep: 1,
      key: key1,
      outDir: out1,
    });
    await sealState({ packed: next, key: key1, wrap });
    expect(readJson(join(out1, "result.json")).restore_mode).toBe("bundle");
    await expect(unpackState(out1, key0, join(home, "old-key"))).rejects.toThrow(/GCM authentication/);
    await unpackState(out1, key1, join(home, "restored"));
    expect(readFileSync(join(home, "restored", "memory.md"), "utf8")).toBe("step 1\n");
  });
});
