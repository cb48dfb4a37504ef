// Syntax colours for code blocks in answers and previews, small enough for the chat's first load: one
// tokenizer per family of languages (comments, strings, numbers, keywords), not a parser. A language it does
// not know is shown plain. The tokens only ever become text nodes in spans (see markdown-code.ts).

export type TokenKind = "keyword" | "string" | "comment" | "number" | "literal" | "plain";
export interface Token {
  kind: TokenKind;
  text: string;
}

interface Grammar {
  keywords: string;
  literals: string;
  /** Alternatives for comments, most specific first. */
  comments: string[];
  strings: string[];
}

const C_COMMENTS = ["\\/\\*[\\s\\S]*?(?:\\*\\/|$)", "\\/\\/[^\\n]*"];
const HASH_COMMENT = ["#[^\\n]*"];
const QUOTED = ['"(?:[^"\\\\\\n]|\\\\.)*"?', "'(?:[^'\\\\\\n]|\\\\.)*'?"];

const JS: Grammar = {
  keywords:
    "abstract as async await break case catch class const continue debugger default delete do else enum export extends finally for from function get if implements import in instanceof interface let new of private protected public readonly return satisfies set static super switch this throw try type typeof var void while with yield",
  literals: "true false null undefined NaN Infinity",
  comments: C_COMMENTS,
  strings: ["`(?:[^`\\\\]|\\\\.)*`?", ...QUOTED],
};

const GRAMMARS: Record<string, Grammar> = {
  js: JS,
  json: { keywords: "", literals: "true false null", comments: [], strings: QUOTED },
  python: {
    keywords:
      "and as assert async await break class continue def del elif else except finally for from global if import in is lambda match case nonlocal not or pass raise return try while with yield self",
    literals: "True False None",
    comments: HASH_COMMENT,
    strings: ['"""[\\s\\S]*?(?:"""|$)', "'''[\\s\\S]*?(?:'''|$)", ...QUOTED],
  },
  sh: {
    keywords:
      "if then else elif fi for while until do done case esac in function return local export set unset echo cd exit source sudo",
    literals: "true false",
    comments: ["(?<![\\w$])#[^\\n]*"],
    strings: ['"(?:[^"\\\\]|\\\\.)*"?', "'[^']*'?"],
  },
  rust: {
    keywords:
      "as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while",
    literals: "true false None Some Ok Err",
    comments: C_COMMENTS,
    strings: ['"(?:[^"\\\\]|\\\\.)*"?'],
  },
  go: {
    keywords:
      "break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
    literals: "true false nil iota",
    comments: C_COMMENTS,
    strings: ["`[^`]*`?", ...QUOTED],
  },
  c: {
    keywords:
      "auto break case char class const continue default delete do double else enum extern final float for goto if import int long namespace new override package private protected public return short signed sizeof static struct switch template this throw try typedef union unsigned using virtual void volatile while boolean extends implements interface",
    literals: "true false null nullptr NULL",
    comments: C_COMMENTS,
    strings: QUOTED,
  },
  sql: {
    keywords:
      "select from where and or not insert into values update set delete create table index view drop alter add join left right inner outer on group by order having limit offset as distinct union all primary key references default begin commit rollback case when then else end is in like exists",
    literals: "null true false",
    comments: ["--[^\\n]*", "\\/\\*[\\s\\S]*?(?:\\*\\/|$)"],
    strings: ["'(?:[^']|'')*'?"],
  },
  toml: {
    keywords: "",
    literals: "true false",
    comments: HASH_COMMENT,
    strings: ['"""[\\s\\S]*?(?:"""|$)', ...QUOTED],
  },
  css: {
    keywords: "@media @import @supports @keyframes @font-face !important",
    literals: "",
    comments: ["\\/\\*[\\s\\S]*?(?:\\*\\/|$)"],
    strings: QUOTED,
  },
};

const ALIASES: Record<string, string> = {
  javascript: "js",
  jsx: "js",
  mjs: "js",
  ts: "js",
  tsx: "js",
  typescript: "js",
  py: "python",
  python3: "python",
  bash: "sh",
  shell: "sh",
  zsh: "sh",
  console: "sh",
  rs: "rust",
  golang: "go",
  cpp: "c",
  "c++": "c",
  h: "c",
  java: "c",
  kotlin: "c",
  cs: "c",
  csharp: "c",
  yaml: "toml",
  yml: "toml",
  ini: "toml",
  scss: "css",
  jsonc: "js",
};

const compiled = new Map<string, RegExp>();
const words = (list: string) =>
  list
    .split(" ")
    .filter(Boolean)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));

function patternOf(grammar: Grammar, caseless: boolean): RegExp {
  const parts = [
    grammar.comments.length ? `(${grammar.comments.join("|")})` : "((?!))",
    grammar.strings.length ? `(${grammar.strings.join("|")})` : "((?!))",
    "(\\b(?:0x[\\da-fA-F_]+|\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\b)",
    grammar.keywords ? `((?<![\\w$@-])(?:${words(grammar.keywords).join("|")})(?![\\w$-]))` : "((?!))",
    grammar.literals ? `(\\b(?:${words(grammar.literals).join("|")})\\b)` : "((?!))",
  ];
  return new RegExp(parts.join("|"), caseless ? "gi" : "g");
}

/** The grammar's name for a fence's language, or undefined when it is shown plain. */
export function grammarOf(language: string): string | undefined {
  const name = language.toLowerCase();
  const key = ALIASES[name] ?? name;
  return key in GRAMMARS ? key : undefined;
}

/** The code as tokens, in order; joined, their text is the code unchanged. */
export function highlightCode(code: string, language: string): Token[] {
  const key = grammarOf(language);
  const grammar = key ? GRAMMARS[key] : undefined;
  if (!key || !grammar) return [{ kind: "plain", text: code }];
  let pattern = compiled.get(key);
  if (!pattern) {
    pattern = patternOf(grammar, key === "sql");
    compiled.set(key, pattern);
  }
  const kinds: TokenKind[] = ["comment", "string", "number", "keyword", "literal"];
  const tokens: Token[] = [];
  let last = 0;
  for (const match of code.matchAll(pattern)) {
    const at = match.index ?? 0;
    if (match[0] === "") continue;
    if (at > last) tokens.push({ kind: "plain", text: code.slice(last, at) });
    const group = match.slice(1).findIndex((g) => g !== undefined);
    tokens.push({ kind: kinds[group] ?? "plain", text: match[0] });
    last = at + match[0].length;
  }
  if (last < code.length) tokens.push({ kind: "plain", text: code.slice(last) });
  return tokens;
}
