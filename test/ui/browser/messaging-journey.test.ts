import { createRequire } from "node:module";
import { join } from "node:path";
import Database from "better-sqlite3";
import { encode } from "uqr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../../src/contracts/index.js";
import { startTelegramServer, type TelegramServer } from "../../support/telegram-server.js";
import { reportFailures, signIn, startUiSession, type UiSession } from "./ui-session.js";

// Linking a messaging app, as a person does it: the Messaging screen shows a one-time code and, for each app this
// warden runs, the one sentence that says where to send it; the code then pairs over that app's real webhook.

let s: UiSession;
let telegram: TelegramServer;
beforeAll(async () => {
  telegram = await startTelegramServer();
  s = await startUiSession(undefined, {
    configure: (config) => ({
      ...config,
      integrations: {
        ...ironclawdConfigSchema.parse({}).integrations,
        telegram: {
          enabled: true,
          token: "123456:TEST",
          secret_token: "ui-secret",
          api_base_url: telegram.url,
          bot: "family",
        },
        slack: {
          enabled: true,
          bot_token: "xoxb-ui",
          signing_secret: "ui-signing-secret",
          api_base_url: "http://127.0.0.1:9/api",
          bot: "team",
          slash_command: "/ironclaw",
        },
      },
    }),
  });
}, 180_000);
afterAll(async () => {
  await s?.close();
  await telegram?.close();
});

// jsQR's bundle sets module.exports to the function itself, which its types call a default export.
const jsQR = createRequire(import.meta.url)("jsqr") as typeof import("jsqr").default;

/** What a QR reader makes of a module matrix drawn 4 pixels a module, black on white. */
function decodeQr(matrix: boolean[][]): string | undefined {
  const scale = 4;
  const side = matrix.length * scale;
  const pixels = new Uint8ClampedArray(side * side * 4).fill(255);
  for (const [y, row] of matrix.entries())
    for (const [x, dark] of row.entries()) {
      if (!dark) continue;
      for (let dy = 0; dy < scale; dy++) {
        const at = ((y * scale + dy) * side + x * scale) * 4;
        for (let dx = 0; dx < scale; dx++) pixels.fill(0, at + dx * 4, at + dx * 4 + 3);
      }
    }
  return jsQR(pixels, side, side)?.data;
}

describe("Messaging", () => {
  reportFailures(() => s);

  it("shows a pairing code and how to send it on each app; the code pairs over the app's webhook", async () => {
    const { page } = s;
    await signIn(page, s.h.url, s.token);
    await page.getByRole("link", { name: "Messaging" }).click();
    // The warden learns the bot's username from Telegram after it starts: a new code once it has.
    const deepLink = page.getByRole("link", { name: /^https:\/\/t\.me\// });
    await expect
      .poll(async () => {
        if ((await deepLink.count()) === 0) await page.getByRole("button", { name: "New code" }).click();
        return deepLink.count();
      })
      .toBe(1);
    const code = (await page.locator(".pairing-code").textContent())?.trim() ?? "";
    expect(code).toMatch(/^[A-Z0-9]{6,}$/);
    expect(await deepLink.getAttribute("href")).toBe(`https://t.me/ironclaw_test_bot?start=${code}`);
    const lines = await page.locator(".pairing-channels li").allTextContents();
    expect(lines).toEqual([
      `telegram:family: Open https://t.me/ironclaw_test_bot?start=${code} — or send /pair ${code} to the bot in a private chat.Scan with your phone to open the bot and pair.`,
      `slack:team: In a direct message with the app, send /ironclaw pair ${code}`,
    ]);

    // Beside the link, its QR code: what a phone's camera reads from it is the link itself.
    const qr = page.getByRole("img", { name: `QR code of https://t.me/ironclaw_test_bot?start=${code}` });
    expect(await qr.count()).toBe(1);
    const modules = Number(await qr.getAttribute("data-modules"));
    const rects = await qr
      .locator("rect")
      .evaluateAll((nodes) =>
        nodes.map((n) => ["x", "y", "width", "height", "fill"].map((a) => n.getAttribute(a) ?? "0")),
      );
    const matrix = Array.from({ length: modules }, () => Array<boolean>(modules).fill(false));
    for (const [x, y, width, , fill] of rects.slice(1)) {
      expect(fill).toBe("#000");
      for (let i = 0; i < Number(width); i++) (matrix[Number(y)] as boolean[])[Number(x) + i] = true;
    }
    const link = `https://t.me/ironclaw_test_bot?start=${code}`;
    expect(matrix).toEqual(encode(link, { ecc: "M", border: 4 }).data);
    expect(decodeQr(matrix)).toBe(link);

    // The code shown is the one the warden takes: sent to the Telegram webhook, it links the chat to this user.
    const update = {
      update_id: 1,
      message: {
        message_id: 1,
        date: 1,
        text: `/start ${code}`,
        chat: { id: 4242, type: "private" },
        from: { id: 4242, is_bot: false, first_name: "Alice" },
      },
    };
    const sent = await fetch(`${s.h.url}/channels/telegram/family`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": "ui-secret" },
      body: JSON.stringify(update),
    });
    expect(sent.status).toBe(200);
    const linked = () => {
      const db = new Database(join(s.h.home, "host.db"), { readonly: true });
      try {
        return db
          .prepare("SELECT user_id FROM channel_links WHERE kind = 'telegram' AND sender_id = '4242'")
          .get();
      } finally {
        db.close();
      }
    };
    await expect.poll(linked).toEqual({ user_id: "alice" });

    // A new code replaces the shown one.
    await page.getByRole("button", { name: "New code" }).click();
    await expect.poll(async () => (await page.locator(".pairing-code").textContent())?.trim()).not.toBe(code);
    expect(s.violations()).toEqual([]);
  });
});
