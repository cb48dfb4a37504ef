import { createHmac } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ClientMessageRequest, PostData, ServerMessage, ServerStatus } from "whatsapp-api-js/types";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { createArrivals } from "./arrivals.js";

/** One Cloud API call the fake received: the phone number id in its path, its bearer token and JSON body. */
export interface GraphCall {
  phoneNumberId: string;
  token: string;
  body: Record<string, unknown>;
  at: number;
}

/** A scripted failure for the next call: an HTTP status and the Graph API's error code and message. */
export interface GraphFailure {
  status: number;
  code: number;
  message: string;
}

export interface WhatsappServer {
  /** The Graph API base URL, `http://127.0.0.1:<port>/v21.0`. */
  readonly url: string;
  readonly calls: GraphCall[];
  /** The text messages sent, as `{ to, text }`. */
  texts(): Array<{ to: unknown; text: unknown }>;
  /** The template messages sent, as `{ to, name, parameter }`. */
  templates(): Array<{ to: unknown; name: unknown; parameter: unknown }>;
  /** The message ids marked read. */
  reads(): unknown[];
  failNext(...failures: GraphFailure[]): void;
  /** Resolves once `count` calls matching `which` have arrived. */
  waitFor(which: "texts" | "templates" | "reads", count: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** Starts a fake WhatsApp Cloud API on 127.0.0.1 with a free port. */
export async function startWhatsappServer(): Promise<WhatsappServer> {
  const calls: GraphCall[] = [];
  const failures: GraphFailure[] = [];
  const arrivals = createArrivals();
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      const phoneNumberId = /^\/v21\.0\/(\d+)\/messages$/.exec((req.url ?? "").split("?")[0] ?? "")?.[1];
      if (!phoneNumberId) return answer(res, 404, { error: { message: "Unknown path", code: 100 } });
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      } catch {
        return answer(res, 400, { error: { message: "Invalid JSON", code: 100 } });
      }
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      calls.push({ phoneNumberId, token, body, at: Date.now() });
      arrivals.arrived();
      const refused = graphRefusal(body);
      if (refused)
        return answer(res, 400, { error: { message: refused, type: "OAuthException", code: 100 } });
      const failure = failures.shift();
      if (failure)
        return answer(res, failure.status, { error: { message: failure.message, code: failure.code } });
      if (token !== "wa-test-token")
        return answer(res, 401, { error: { message: "Invalid OAuth", code: 190 } });
      if (body.status === "read") return answer(res, 200, { success: true });
      answer(res, 200, { messaging_product: "whatsapp", messages: [{ id: `wamid.out${calls.length}` }] });
    });
  });
  const ok = calls.filter.bind(calls);
  const texts = () =>
    ok((c) => c.body.type === "text").map((c) => ({
      to: c.body.to,
      text: (c.body.text as { body?: unknown } | undefined)?.body,
    }));
  const templates = () =>
    ok((c) => c.body.type === "template").map((c) => {
      const template = c.body.template as {
        name: unknown;
        components: Array<{ parameters: Array<{ text: unknown }> }>;
      };
      return { to: c.body.to, name: template.name, parameter: template.components[0]?.parameters[0]?.text };
    });
  const reads = () => ok((c) => c.body.status === "read").map((c) => c.body.message_id);
  const lists = { texts, templates, reads };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v21.0`,
    calls,
    texts,
    templates,
    reads,
    failNext: (...f) => {
      failures.push(...f);
    },
    waitFor: (which, count, timeoutMs) =>
      arrivals.waitFor(() => lists[which]().length, count, which, timeoutMs),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export const WHATSAPP_APP_SECRET = "whatsapp-app-secret-for-tests";
export const WHATSAPP_VERIFY_TOKEN = "whatsapp-verify-token";
export const WHATSAPP_NUMBER_ID = "106540352242922";

/** The warden's `[integrations]` with a number named "home" whose Graph API is this fake; the rest default. */
export function whatsappIntegration(wa: WhatsappServer, noticeTemplate?: string) {
  return {
    ...ironclawdConfigSchema.parse({}).integrations,
    whatsapp: {
      enabled: true,
      phone_number_id: WHATSAPP_NUMBER_ID,
      access_token: "wa-test-token",
      app_secret: WHATSAPP_APP_SECRET,
      verify_token: WHATSAPP_VERIFY_TOKEN,
      api_base_url: wa.url,
      bot: "home",
      template_language: "en_US",
      ...(noticeTemplate ? { notice_template: noticeTemplate } : {}),
    },
  };
}

/** The header Meta signs a notification with. */
export function whatsappSignature(body: string, secret = WHATSAPP_APP_SECRET): Record<string, string> {
  return { "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(body).digest("hex")}` };
}

/** A notification of one text message from `from` to the test number. */
export function whatsappText(
  from: string,
  text: string,
  id: string,
  phoneNumberId = WHATSAPP_NUMBER_ID,
): string {
  return whatsappMessage(from, { id, type: "text", text: { body: text } }, phoneNumberId);
}

/** A notification of one image from `from`: a message the warden does not read. */
export function whatsappImage(from: string, id: string): string {
  return whatsappMessage(from, {
    id,
    type: "image",
    image: {
      id: "1479537139650973",
      mime_type: "image/jpeg",
      sha256: "HgMq2Vw4cZ5sbqOs0tJ3",
      url: "https://lookaside.fbsbx.invalid/whatsapp_business/attachments/?mid=1479537139650973",
      static_url:
        "https://lookaside.fbsbx.invalid/whatsapp_business/attachments/?mid=1479537139650973&static=1",
    },
  });
}

/** A notification that a message the number sent reached `status` on the person's phone. */
export function whatsappStatus(to: string, messageId: string, status: ServerStatus): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: WABA_ID,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: DISPLAY_NUMBER, phone_number_id: WHATSAPP_NUMBER_ID },
              statuses: [
                {
                  id: messageId,
                  status,
                  timestamp: "1700000100",
                  recipient_id: to,
                  recipient_user_id: `US.${to}`,
                  conversation: { id: "CONVERSATION_ID", origin: { type: "service" } },
                  pricing: { pricing_model: "PMP", type: "free_customer_service", category: "service" },
                },
              ],
            },
          },
        ],
      },
    ],
  } satisfies PostData);
}

const WABA_ID = "102290129340398";
const DISPLAY_NUMBER = "15550001111";

/** A message object without its sender and time, which the notification adds (one per message type). */
type MessageContent = ServerMessage extends infer M
  ? M extends unknown
    ? Omit<M, "from" | "from_user_id" | "timestamp">
    : never
  : never;

/** A notification of one message from `from` (its id and content, as Meta's message object has them). */
function whatsappMessage(from: string, message: MessageContent, phoneNumberId = WHATSAPP_NUMBER_ID): string {
  return JSON.stringify({
    object: "whatsapp_business_account",
    entry: [
      {
        id: WABA_ID,
        changes: [
          {
            field: "messages",
            value: {
              messaging_product: "whatsapp",
              metadata: { display_phone_number: DISPLAY_NUMBER, phone_number_id: phoneNumberId },
              contacts: [{ profile: { name: "Erin" }, wa_id: from, user_id: `US.${from}` }],
              messages: [{ ...message, from, from_user_id: `US.${from}`, timestamp: "1700000000" }],
            },
          },
        ],
      },
    ],
  } satisfies PostData);
}

/**
 * Why the Graph API would refuse a /messages call (its error message), or undefined: the fields every message
 * request has (whatsapp-api-js's ClientMessageRequest: messaging_product, to, type and that type's object), a text
 * body of at most 4,096 characters, a template's name and language; a read receipt's message id.
 */
function graphRefusal(body: Record<string, unknown>): string | undefined {
  const request = body as Partial<Pick<ClientMessageRequest, "messaging_product" | "to">> &
    Record<string, unknown>;
  if (request.messaging_product !== "whatsapp") return "(#100) The parameter messaging_product is required.";
  if (body.status === "read")
    return typeof body.message_id === "string" ? undefined : "(#100) The parameter message_id is required.";
  if (typeof request.to !== "string" || request.to === "") return "(#100) The parameter to is required.";
  if (body.type === "text") {
    const text = body.text as { body?: unknown } | undefined;
    if (typeof text?.body !== "string" || text.body === "")
      return "(#100) The parameter text['body'] is required.";
    if (text.body.length > 4096) return "(#100) Param text['body'] must be at most 4096 characters long.";
    return undefined;
  }
  if (body.type === "template") {
    const template = body.template as { name?: unknown; language?: { code?: unknown } } | undefined;
    if (typeof template?.name !== "string" || typeof template.language?.code !== "string")
      return "(#100) The parameter template['name'] and template['language'] are required.";
    return undefined;
  }
  return `(#100) Unsupported message type ${String(body.type)}`;
}
