import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const PLACEHOLDER_PREFIX = "ironclaw-ph-";
const RANDOM_BYTES = 16;
const TAG_BYTES = 32;
/** base64url of 48 bytes: 64 characters, no padding. */
const PLACEHOLDER = new RegExp(
  `^${PLACEHOLDER_PREFIX}([A-Za-z0-9_-]{${((RANDOM_BYTES + TAG_BYTES) * 4) / 3}})$`,
);

/**
 * What a cell holds instead of a secret: `ironclaw-ph-` + base64url(16 random bytes ‖ HMAC-SHA256 over the cell id
 * and those bytes). It carries neither the secret's name nor anything of its value, and its tag ties it to one
 * cell, so a placeholder carried to another cell (or made up) resolves to nothing. The book lives in the warden's
 * memory only: a restarted warden starts new cells, which get new placeholders.
 */
export class PlaceholderBook {
  /** cell id → placeholder → secret name, and the reverse for a repeated mint. */
  private readonly byCell = new Map<string, { names: Map<string, string>; minted: Map<string, string> }>();

  /** `key` is the HMAC key (SecretKeyring.placeholderKey()); a function, so the key file is read on first use. */
  constructor(private readonly key: () => Buffer) {}

  /** The cell's placeholder for this secret; the same one for as long as the cell lives. */
  mint(cellId: string, secretName: string): string {
    const cell = this.cell(cellId);
    const existing = cell.minted.get(secretName);
    if (existing) return existing;
    const random = randomBytes(RANDOM_BYTES);
    const placeholder =
      PLACEHOLDER_PREFIX + Buffer.concat([random, this.tag(cellId, random)]).toString("base64url");
    cell.names.set(placeholder, secretName);
    cell.minted.set(secretName, placeholder);
    return placeholder;
  }

  /** The secret's name, only when this placeholder was minted for this cell and the cell has not stopped. */
  resolve(cellId: string, placeholder: string): string | undefined {
    const match = PLACEHOLDER.exec(placeholder);
    if (!match?.[1]) return undefined;
    const bytes = Buffer.from(match[1], "base64url");
    const random = bytes.subarray(0, RANDOM_BYTES);
    // The tag is checked before the lookup, in constant time: a guess teaches nothing about what was minted.
    if (!timingSafeEqual(bytes.subarray(RANDOM_BYTES), this.tag(cellId, random))) return undefined;
    return this.byCell.get(cellId)?.names.get(placeholder);
  }

  /** The cell stopped: its placeholders resolve to nothing from now on. */
  forgetCell(cellId: string): void {
    this.byCell.delete(cellId);
  }

  private cell(cellId: string) {
    let cell = this.byCell.get(cellId);
    if (!cell) {
      cell = { names: new Map(), minted: new Map() };
      this.byCell.set(cellId, cell);
    }
    return cell;
  }

  private tag(cellId: string, random: Buffer): Buffer {
    const cell = Buffer.from(cellId, "utf8");
    const length = Buffer.alloc(4);
    length.writeUInt32BE(cell.length);
    return createHmac("sha256", this.key()).update(length).update(cell).update(random).digest();
  }
}
