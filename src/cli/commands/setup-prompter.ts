import { createInterface } from "node:readline/promises";
import { IronclawError } from "../../core/index.js";
import { type CliIo, println, UsageError } from "../command.js";
import { readHiddenLine } from "../hidden-prompt.js";

/** A question of the wizard: Enter takes the fallback; "skip" leaves an optional one unanswered. */
export interface Question {
  prompt: string;
  fallback?: string | undefined;
  optional?: boolean;
  /** The rule the answer breaks, or undefined when it is good. */
  check?: (answer: string) => string | undefined;
  /** The flag that gives this answer to a script (`--user`), named when --yes finds none. */
  flag: string;
}

/**
 * How the wizard asks: on a terminal a person answers (defaults in brackets), with --yes every question takes its
 * default (what the flags gave, what the home already holds, or the wizard's own choice).
 */
export interface Prompter {
  readonly interactive: boolean;
  say(text?: string): void;
  text(question: Question): Promise<string | undefined>;
  choose<T extends string>(prompt: string, choices: readonly T[], fallback: T, flag: string): Promise<T>;
  confirm(prompt: string, fallback: boolean): Promise<boolean>;
  /** A secret typed without echo; "" when Enter was pressed. Only asked on a terminal. */
  secret(prompt: string): Promise<string>;
}

const SKIP = "skip";

export function scriptedPrompter(io: CliIo): Prompter {
  // Each answer taken is said, so a script's log shows what was chosen.
  const took = <T>(prompt: string, value: T): T => {
    println(io.stdout, `  ${prompt}: ${value === undefined ? SKIP : String(value)}`);
    return value;
  };
  return {
    interactive: false,
    say: (text = "") => println(io.stdout, text),
    async text(q) {
      if (q.fallback !== undefined || q.optional) return took(q.prompt, q.fallback);
      throw new UsageError(`${q.flag}: needed with --yes (${q.prompt.toLowerCase()})`, { showUsage: false });
    },
    choose: async (prompt, _choices, fallback) => took(prompt, fallback),
    confirm: async (prompt, fallback) => took(prompt.replace(/\?$/, ""), fallback ? "yes" : "no") === "yes",
    secret: async () => "",
  };
}

/** Questions on the terminal through node:readline; Ctrl-C or Ctrl-D stops the wizard before it writes anything more. */
export function terminalPrompter(io: CliIo): Prompter {
  const ask = async (prompt: string): Promise<string> => {
    const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: true });
    const stop = new AbortController();
    rl.on("SIGINT", () => stop.abort());
    rl.on("close", () => stop.abort());
    try {
      return (await rl.question(prompt, { signal: stop.signal })).trim();
    } catch (error) {
      if ((error as Error).name === "AbortError")
        throw new IronclawError("aborted", "setup stopped: nothing more was written");
      throw error;
    } finally {
      rl.close();
    }
  };
  const prompter: Prompter = {
    interactive: true,
    say: (text = "") => println(io.stdout, text),
    async text(q) {
      const shown = q.fallback ? ` [${q.fallback}]` : q.optional ? ` [${SKIP}]` : "";
      for (;;) {
        const answer = await ask(`${q.prompt}${shown}: `);
        if (answer === "" && q.fallback !== undefined) return q.fallback;
        if ((answer === "" || answer.toLowerCase() === SKIP) && q.optional) return undefined;
        if (answer === "") {
          prompter.say("  an answer is needed here");
          continue;
        }
        const rule = q.check?.(answer);
        if (rule === undefined) return answer;
        prompter.say(`  ${rule}`);
      }
    },
    async choose(prompt, choices, fallback) {
      for (;;) {
        const answer = (await ask(`${prompt} (${choices.join(", ")}) [${fallback}]: `)).toLowerCase();
        if (answer === "") return fallback;
        const chosen = choices.find((c) => c.toLowerCase() === answer);
        if (chosen) return chosen;
        prompter.say(`  one of ${choices.join(", ")}, please`);
      }
    },
    async confirm(prompt, fallback) {
      for (;;) {
        const answer = (await ask(`${prompt} [${fallback ? "Y/n" : "y/N"}]: `)).toLowerCase();
        if (answer === "") return fallback;
        if (["y", "yes"].includes(answer)) return true;
        if (["n", "no", SKIP].includes(answer)) return false;
        prompter.say("  y or n, please");
      }
    },
    secret: (prompt) => readHiddenLine(io.stdin, `${prompt}: `, io.stdout),
  };
  return prompter;
}
