import { describe, expect, it } from "vitest";
import { InvalidInputError, ValidationError } from "../../core/index.js";
import { parsePlanReply } from "./plan-reply.js";
import { planFromModelText } from "./plan-text.js";

const order = (key: string, dependsOn: string[] = []) => ({
  key,
  type: "draft",
  objective: `do ${key}`,
  depends_on: dependsOn,
});

function problems(run: () => unknown): Array<{ path: string; message: string }> {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error.issues.map(({ path, message }) => ({ path, message }));
    throw error;
  }
  throw new Error("expected a ValidationError");
}

describe("planFromModelText", () => {
  it("reads a plan from a ```json fence with prose around it", () => {
    const text = `Here is the plan:\n\n\`\`\`json\n${JSON.stringify({ orders: [order("a")] })}\n\`\`\`\nGood luck.`;
    expect(planFromModelText(text).orders.map((o) => o.key)).toEqual(["a"]);
  });

  it("reads a bare JSON reply, and a JSON object inside a sentence", () => {
    const plan = JSON.stringify({ orders: [order("a"), order("b", ["a"])] });
    expect(planFromModelText(plan).orders[1]?.depends_on).toEqual(["a"]);
    expect(planFromModelText(`Plan: ${plan} — done.`).orders).toHaveLength(2);
  });

  it("says why when there is no JSON, or the fence holds broken JSON", () => {
    expect(() => planFromModelText("I could not plan this.")).toThrow(/no JSON object/);
    expect(() => planFromModelText("```json\n{ orders: [ }\n```")).toThrow(/fenced block is not JSON/);
    expect(() => planFromModelText("   ")).toThrow(InvalidInputError);
  });

  it("refuses JSON that is not a plan, naming the field", () => {
    expect(problems(() => planFromModelText('{"orders": []}'))).toEqual([
      { path: "$.orders", message: "must hold at least one order" },
    ]);
  });
});

describe("parsePlanReply", () => {
  it("fills defaults and reads `id` as the key and a bare list as the orders", () => {
    const [first] = parsePlanReply([{ id: "a", type: "draft", objective: "x" }]).orders;
    expect(first).toMatchObject({ key: "a", depends_on: [], acceptance_commands: [], inputs: {} });
  });

  it("refuses a cycle at the depends_on of an order on it", () => {
    const issues = problems(() =>
      parsePlanReply({ orders: [order("a", ["c"]), order("b", ["a"]), order("c", ["b"])] }),
    );
    expect(issues).toEqual([
      { path: "$.orders[0].depends_on", message: "must not form a cycle: a → c → b → a" },
    ]);
  });

  it("refuses unknown, self and duplicate references by their path", () => {
    const issues = problems(() =>
      parsePlanReply({ orders: [order("a", ["zz"]), order("b", ["b"]), order("a")] }),
    );
    expect(issues).toEqual([
      { path: "$.orders[2].key", message: "must be unique: a is used twice" },
      { path: "$.orders[0].depends_on[0]", message: "must be the key of another order in this plan: zz" },
      { path: "$.orders[1].depends_on[0]", message: "must not be the order's own key" },
    ]);
  });

  it("refuses a blank objective, a missing type and a plan granting network", () => {
    const granted = { ...order("b"), constraints: { tool_policy: { network: true } } };
    expect(problems(() => parsePlanReply({ orders: [{ key: "a", objective: " " }] }))).toEqual([
      { path: "$.orders[0].type", message: "is required" },
      { path: "$.orders[0].objective", message: "must not be blank" },
    ]);
    expect(problems(() => parsePlanReply({ orders: [granted] }))).toEqual([
      {
        path: "$.orders[0].constraints.tool_policy.network",
        message: "must be false: orders run without network",
      },
    ]);
  });
});
