import { describe, expect, it } from "vitest";
import { grammarOf, highlightCode } from "./code-highlight.js";

const kinds = (code: string, language: string) =>
  highlightCode(code, language)
    .filter((t) => t.kind !== "plain")
    .map((t) => `${t.kind}:${t.text}`);

describe("code colours", () => {
  it("finds keywords, strings, comments, numbers and literals, and gives back the code unchanged", () => {
    const code = 'def f(x):\n    # twice\n    return x * 2 if x is not None else "none"';
    expect(kinds(code, "python")).toEqual([
      "keyword:def",
      "comment:# twice",
      "keyword:return",
      "number:2",
      "keyword:if",
      "keyword:is",
      "keyword:not",
      "literal:None",
      "keyword:else",
      'string:"none"',
    ]);
    expect(
      highlightCode(code, "py")
        .map((t) => t.text)
        .join(""),
    ).toBe(code);
  });

  it("keeps a keyword inside a string or a comment as part of it, and reads shell, SQL and JSON", () => {
    expect(kinds('const s = "if return"; // const', "typescript")).toEqual([
      "keyword:const",
      'string:"if return"',
      "comment:// const",
    ]);
    expect(kinds("echo $HOME # home\nif [ -f x#y ]; then exit 1; fi", "bash")).toEqual([
      "keyword:echo",
      "comment:# home",
      "keyword:if",
      "keyword:then",
      "keyword:exit",
      "number:1",
      "keyword:fi",
    ]);
    expect(kinds("SELECT id FROM t WHERE n = 'x' -- one", "sql")).toEqual([
      "keyword:SELECT",
      "keyword:FROM",
      "keyword:WHERE",
      "string:'x'",
      "comment:-- one",
    ]);
    expect(kinds('{"a": [1, true, null]}', "json")).toEqual([
      'string:"a"',
      "number:1",
      "literal:true",
      "literal:null",
    ]);
  });

  it("shows a language it does not know as one plain token", () => {
    expect(grammarOf("brainfuck")).toBeUndefined();
    expect(highlightCode("+++[>+<-]", "brainfuck")).toEqual([{ kind: "plain", text: "+++[>+<-]" }]);
    expect(grammarOf("TSX")).toBe("js");
  });
});
