import type { z } from "zod";
import { type ConfigNode, configTree } from "../../src/core/index.js";

/**
 * A rendered config template with every key shown at its default uncommented, as an operator who removes each
 * `#` would: table headers included, multi-line arrays whole. Left commented: keys shown at an example or
 * marked required (they have no default), map placeholders (`[providers.<name>]`) and their examples, and the
 * optional tables of the schema, which writing would create. If the file shows true defaults, the result reads
 * back as the same config as the file left untouched.
 */
export function uncommentDefaults(schema: z.ZodType, text: string): string {
  const optional = optionalTables(schema);
  const out: string[] = [];
  let skipping = false;
  let inExample = false;
  let inArray = false;
  for (const line of text.split("\n")) {
    if (inArray) {
      out.push(line.replace(/^# /, ""));
      inArray = line !== "# ]";
      continue;
    }
    if (line === "# For example:") inExample = true;
    if (line === "") inExample = false;
    const header = /^(#\s)?\[([^[\]]+)\]$/.exec(line);
    if (header?.[2] !== undefined) {
      const name = header[2].replaceAll('"', "");
      const absent =
        header[1] !== undefined && [...optional].some((t) => name === t || name.startsWith(`${t}.`));
      skipping = inExample || name.includes("<") || absent;
      out.push(skipping ? line : line.replace(/^# /, ""));
      continue;
    }
    const key = /^# [A-Za-z0-9_-]+ = /.test(line);
    if (key && !skipping && !inExample && !/ {3}# (an example|required)/.test(line)) {
      out.push(line.slice(2));
      inArray = line.endsWith("[");
    } else out.push(line);
  }
  return out.join("\n");
}

function optionalTables(schema: z.ZodType): Set<string> {
  const found = new Set<string>();
  const walk = (node: ConfigNode, prefix: string[]) => {
    if (node.kind !== "table") return;
    const path = node.name === "" ? prefix : [...prefix, node.name];
    if (node.optional) found.add(path.join("."));
    for (const child of node.children) walk(child, path);
  };
  walk(configTree(schema), []);
  return found;
}
