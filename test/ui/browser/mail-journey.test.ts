import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MailServers, mailServersMissing, startMailHost } from "../../support/mail-servers.js";
import { reply } from "../../support/model-server.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// The Mail screen against a real warden, a real cell and a real Postfix + Dovecot: alice stores her mail password
// on the screen, asks her agent in the chat to mail someone, reads the draft on the Mail screen exactly as it
// will leave, sends it (it arrives), and drops a second one (it never does). The password never reaches the page
// again, nor the model.

const missing = mailServersMissing();
if (missing) console.warn(`Mail screen journey skipped: ${missing}`);

let s: UiSession;
let servers: MailServers;
let inbox: () => Promise<string[]>;

beforeAll(async () => {
  if (missing) return;
  const mail = await startMailHost();
  servers = mail.servers;
  inbox = () => mail.subjects();
  s = await startUiSession(undefined, { egressDial: mail.egressDial, configure: mail.configure });
}, 180_000);
afterAll(async () => {
  await s?.close();
  await servers?.stop();
});

/** Asks the agent in the chat to mail servers.user; the scripted model drafts (as draft `uid`) and asks to send. */
async function askForMail(subject: string, text: string, uid: number): Promise<void> {
  const { page } = s;
  const asked = s.h.model.chatRequests().length;
  s.h.model.enqueue(
    reply.toolCalls([{ name: "mail_draft", arguments: { to: [servers.user], subject, text } }]),
    reply.toolCalls([{ name: "mail_send", arguments: { draft_uid: uid } }]),
    reply.text(`Drafted ${subject} and asked to send it: please confirm it on the Mail screen.`),
  );
  await page.goto(`${s.h.url}/ui/#/chat`);
  await page.locator('.connection[data-state="online"]').waitFor();
  await page.getByLabel("Message", { exact: true }).fill(`mail me: ${subject}`);
  await page.keyboard.press("Enter");
  await page
    .locator('.message.assistant[data-streaming="false"]', { hasText: `Drafted ${subject} and asked` })
    .waitFor();
  // The turn is over once the model has answered its three calls (the draft, the send, the reply).
  await expect.poll(() => s.h.model.chatRequests().length).toBe(asked + 3);
  await page.goto(`${s.h.url}/ui/#/mail`);
  await page.getByRole("heading", { name: "Mail", level: 1 }).waitFor();
}

describe.skipIf(missing !== undefined)("Mail", () => {
  reportFailures(() => s);

  it("stores the password, shows the draft the agent asked to send, sends it on Send and drops the next on Don’t send", async () => {
    const { page } = s;
    await signIn(page, s.h.url, s.token, "mail");
    await page.getByText("Add your mail password to use mail.").waitFor();
    await page.getByLabel("Value of MAIL_PASSWORD").fill(servers.password);
    await page.getByRole("button", { name: "Set password" }).click();
    await page.getByText("No mail is waiting for you.").waitFor();
    expect(await page.getByLabel("Value of MAIL_PASSWORD").inputValue()).toBe("");

    await askForMail("Dinner plans", "Thursday at eight?\nBring the quince jam.", 1);
    const card = page.getByRole("article", { name: "Dinner plans" });
    await card.waitFor();
    expect(await card.locator(".recipients").textContent()).toBe(servers.user);
    expect((await card.locator(".mail-text").textContent())?.trim()).toBe(
      "Thursday at eight?\nBring the quince jam.",
    );
    expect(await inbox()).not.toContain("Dinner plans");
    await shoot(page, "mail-pending");
    await card.getByRole("button", { name: "Send", exact: true }).click();
    await expect
      .poll(() => page.locator(".notice.info").textContent())
      .toBe(`Sent “Dinner plans” to ${servers.user}.`);
    await page.getByText("No mail is waiting for you.").waitFor();
    await expect.poll(inbox, { timeout: 20_000 }).toContain("Dinner plans");

    await askForMail("Not this one", "Draft to be dropped.", 2);
    const second = page.getByRole("article", { name: "Not this one" });
    await second.getByRole("button", { name: "Don’t send" }).click();
    await expect
      .poll(() => page.locator(".notice.info").textContent())
      .toBe("Dropped “Not this one”; nothing was sent. The draft stays in your Drafts.");
    // The notice and the list are two updates of the page: the card goes with the list's next render.
    await expect.poll(() => second.count()).toBe(0);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await inbox()).not.toContain("Not this one");

    expect(await page.content()).not.toContain(servers.password);
    expect(JSON.stringify(s.h.model.chatRequests())).not.toContain(servers.password);
    expect(s.violations()).toEqual([]);
  });
});
