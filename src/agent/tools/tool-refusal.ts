import { IronclawError } from "../../core/index.js";

/**
 * A policy said no (a path outside the roots, a denied host, a private address). Tools throw it; the tool box
 * turns it into an `isError` result the model can read and audits the call as refused. It has its own file
 * because the policies that throw it are also part of the tool context (`tool-definition.ts`).
 */
export class ToolRefusal extends IronclawError {
  override readonly name = "ToolRefusal";
  constructor(message: string, options?: { cause?: unknown }) {
    super("tool_refused", message, options);
  }
}
