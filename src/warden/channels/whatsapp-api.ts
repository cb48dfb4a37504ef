import { z } from "zod";
import { createLogger, type Logger } from "../../core/index.js";
import { callPlatform, type PlatformCallOptions, type PlatformFailure, safeJson } from "./platform-call.js";

export interface WhatsappApiOptions extends PlatformCallOptions {
  /** `https://graph.facebook.com/v21.0`, or a local fake in tests. */
  baseUrl: string;
  phoneNumberId: string;
  /** Sent as a bearer token, never in a URL, never logged. */
  token: string;
  logger?: Logger;
}

// Graph API errors (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes).
const errorSchema = z.looseObject({
  error: z.looseObject({ message: z.string().optional(), code: z.number().optional() }),
});
/** Meta's code for a free-form message outside the 24-hour customer-service window. */
export const OUTSIDE_WINDOW_CODE = 131047;

/**
 * The Cloud API calls the warden needs: a text, a template, a read receipt. Failures are data: each logs what went
 * wrong and returns it, because an answer that cannot be delivered must never take the daemon down, nor hold
 * other conversations up.
 */
export class WhatsappApi {
  private readonly url: string;
  private readonly log: Logger;

  constructor(private readonly options: WhatsappApiOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, "")}/${options.phoneNumberId}/messages`;
    this.log = options.logger ?? createLogger("whatsapp");
  }

  /** Plain text, links not previewed (an answer's URL is not fetched by Meta on the reader's behalf). */
  sendText(to: string, body: string): Promise<PlatformFailure | undefined> {
    return this.call(
      { recipient_type: "individual", to, type: "text", text: { preview_url: false, body } },
      to,
    );
  }

  /** An approved template with one body parameter: what may reach someone outside the 24-hour window. */
  sendTemplate(
    to: string,
    name: string,
    language: string,
    parameter: string,
  ): Promise<PlatformFailure | undefined> {
    return this.call(
      {
        to,
        type: "template",
        template: {
          name,
          language: { code: language },
          components: [{ type: "body", parameters: [{ type: "text", text: parameter }] }],
        },
      },
      to,
    );
  }

  /** Marks a received message read (the two blue ticks). */
  async markRead(messageId: string): Promise<boolean> {
    return (await this.call({ status: "read", message_id: messageId }, undefined)) === undefined;
  }

  private async call(
    body: Record<string, unknown>,
    to: string | undefined,
  ): Promise<PlatformFailure | undefined> {
    const failure = await callPlatform({
      url: this.url,
      headers: { "content-type": "application/json", authorization: `Bearer ${this.options.token}` },
      body: { messaging_product: "whatsapp", ...body },
      secret: this.options.token,
      options: this.options,
      read: ({ ok, status, text }) => {
        if (ok) return { ok: true };
        const parsed = errorSchema.safeParse(safeJson(text));
        const code = parsed.success ? parsed.data.error.code : undefined;
        return {
          ok: false,
          reason: parsed.success
            ? (parsed.data.error.message ?? `status ${status}`)
            : `status ${status}, not a Graph API answer`,
          ...(code === undefined ? {} : { code }),
        };
      },
      onRetry: (f, waitMs) => this.log.debug({ to, status: f.status, waitMs }, "WhatsApp call retried"),
    });
    if (failure) this.log.warn({ to, ...failure }, "WhatsApp call failed");
    return failure;
  }
}
