import { describe, expect, it } from "vitest";
import { decodeCompletionText, extractCompletionBlock } from "./completion-block.js";

const json = '{"run_id": "task-1", "risk": "low"}';

function decodedValue(text: string): unknown {
  const result = decodeCompletionText(text);
  if ("issues" in result) throw new Error(result.issues.map((i) => i.message).join("; "));
  return result.value;
}

function issueMessages(text: string): string[] {
  const result = decodeCompletionText(text);
  return "issues" in result ? result.issues.map((i) => `${i.path} ${i.message}`) : [];
}

describe("completion block extraction", () => {
  it("takes the JSON between the tags and ignores the prose around them", () => {
    const text = `Tests pass.\n\n<completion>\n${json}\n</completion>\n\nAnything else?`;
    expect(decodedValue(text)).toEqual({ run_id: "task-1", risk: "low" });
  });

  it("finds a block that sits inside a markdown code fence", () => {
    expect(decodedValue(`Summary:\n\`\`\`text\n<completion>\n${json}\n</completion>\n\`\`\`\n`)).toEqual({
      run_id: "task-1",
      risk: "low",
    });
  });

  it("unwraps a json code fence written inside the tags", () => {
    expect(decodedValue(`<completion>\n\`\`\`json\n${json}\n\`\`\`\n</completion>`)).toEqual({
      run_id: "task-1",
      risk: "low",
    });
  });

  it("reads a block whose lines end in CRLF", () => {
    const text = `Done.\r\n<completion>\r\n{\r\n  "run_id": "task-1"\r\n}\r\n</completion>\r\n`;
    expect(decodedValue(text)).toEqual({ run_id: "task-1" });
  });

  it("is not confused by prose that mentions the opening tag before the block", () => {
    const text = `I will now print the <completion> block.\n<completion>${json}</completion>`;
    expect(decodedValue(text)).toEqual({ run_id: "task-1", risk: "low" });
  });

  it("reports a missing block at the root", () => {
    expect(issueMessages("All done, PR is open.")).toEqual(["$ no <completion> block"]);
  });

  it("rejects two blocks and says where they are", () => {
    const block = `<completion>${json}</completion>`;
    expect(issueMessages(`${block}\nagain:\n${block}`)).toEqual([
      "$ found 2 <completion> blocks (lines 1, 3); exactly one is required",
    ]);
  });

  it("rejects an unterminated block and names the line it opened on", () => {
    expect(issueMessages(`Done.\n\n<completion>\n${json}\n`)).toEqual([
      "$ <completion> at line 3 is not closed by </completion>",
    ]);
  });

  it("rejects an empty block", () => {
    expect(issueMessages("<completion>\n  \n</completion>")).toEqual(["$ <completion> block is empty"]);
  });

  it("names the line and column of a syntax error in the worker's own output", () => {
    const text = `Prose line.\n<completion>\n{\n  "run_id": "task-1",\n}\n</completion>`;
    const [message] = issueMessages(text);
    expect(message).toMatch(/^\$ <completion> block is not valid JSON \(line 5, column 1\): /);
  });

  it("counts lines the same way when they end in CRLF", () => {
    const text = `Prose line.\r\n<completion>\r\n{\r\n  "run_id": "task-1",\r\n}\r\n</completion>`;
    expect(issueMessages(text)[0]).toMatch(/\(line 5, column 1\)/);
  });

  it("points at the end of the block when the JSON stops early", () => {
    const text = `<completion>\n{"run_id":</completion>`;
    expect(issueMessages(text)[0]).toMatch(/\(line 2, column 11\): Unexpected end of JSON input$/);
  });

  it("returns the offset of the JSON so callers can map positions back", () => {
    const text = `ab<completion>${json}</completion>`;
    const block = extractCompletionBlock(text);
    expect(block).toEqual({ json, offset: 14 });
  });
});
