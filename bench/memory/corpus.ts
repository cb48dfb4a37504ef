import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { seededRandom } from "../../src/memory/index.js";

export interface GeneratedCorpus {
  files: string[];
  sectionsPerFile: number;
  /** Words of each topic. */
  topicWords: string[][];
  /** Each section's topic, by `path#heading`: a hit is relevant when it has the query's topic. */
  topicOf: Map<string, number>;
}

const FILLER = "the a of and to in is was for on with that by as at from it this be are".split(" ");

/**
 * Markdown files of `sectionsPerFile` sections each, every section about one of `topicCount` topics: 60–90
 * words drawn mostly from the topic's 25 words, some from the general vocabulary, with filler words between.
 * Words come from the embedder's own vocabulary so the semantic leg sees real vectors.
 */
export async function writeCorpus(
  root: string,
  options: {
    chunks: number;
    sectionsPerFile: number;
    vocabulary: string[];
    topicCount: number;
    seed: number;
    /** False: only compute what would be written (a kept brain from an earlier run already holds the files). */
    write?: boolean;
  },
): Promise<GeneratedCorpus> {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const topicWords = Array.from({ length: options.topicCount }, () =>
    Array.from({ length: 25 }, () => pick(options.vocabulary)),
  );
  const fileCount = Math.ceil(options.chunks / options.sectionsPerFile);
  const files: string[] = [];
  const topicOf = new Map<string, number>();
  for (let f = 0; f < fileCount; f++) {
    const path = `notes/${String(Math.floor(f / 500)).padStart(3, "0")}/note-${f}.md`;
    const lines = [`# Note ${f}`, ""];
    for (let s = 0; s < options.sectionsPerFile; s++) {
      const topic = Math.floor(random() * topicWords.length);
      const words = topicWords[topic] as string[];
      const heading = `${pick(words)} ${pick(words)} ${s}`;
      const body: string[] = [];
      const length = 60 + Math.floor(random() * 30);
      for (let w = 0; w < length; w++) {
        const r = random();
        body.push(r < 0.6 ? pick(words) : r < 0.8 ? pick(options.vocabulary) : pick(FILLER));
      }
      lines.push(`## ${heading}`, "", `${body.join(" ")}.`, "");
      topicOf.set(`${path}#${heading}`, topic);
    }
    if (options.write !== false) {
      const absolute = join(root, path);
      await mkdir(dirname(absolute), { recursive: true });
      await writeFile(absolute, lines.join("\n"));
    }
    files.push(path);
  }
  return { files, sectionsPerFile: options.sectionsPerFile, topicWords, topicOf };
}

/** Appends a word to the fourth section of a generated file: exactly one chunk changes. */
export async function editOneSection(file: string, stamp: number): Promise<void> {
  const text = await readFile(file, "utf8");
  const sections = text.split("\n## ");
  sections[3] = (sections[3] as string).replace(/\.\n/, ` edited${stamp}.\n`);
  await writeFile(file, sections.join("\n## "));
}
