import { type BuiltinEmbedder, dotProduct } from "../../src/memory/index.js";
import type { GeneratedCorpus } from "./corpus.js";

export type QueryClass = "lexical" | "paraphrase";

export interface BenchQuery {
  text: string;
  /** Relevant hits are the sections of this topic. */
  topic: number;
  kind: QueryClass;
  /** For a paraphrase, the topic words it stands in for. */
  paraphraseOf?: string;
}

/** Three words of a random section's topic and one unrelated word: the words the answer contains. */
export function lexicalQueries(
  corpus: GeneratedCorpus,
  vocabulary: readonly string[],
  random: () => number,
  count: number,
): BenchQuery[] {
  const sections = [...corpus.topicOf.values()];
  return Array.from({ length: count }, () => {
    const topic = pickTopic(sections, random);
    const words = corpus.topicWords[topic] as string[];
    const pick = () => words[Math.floor(random() * words.length)] as string;
    const noise = vocabulary[Math.floor(random() * vocabulary.length)] as string;
    return { text: `${pick()} ${pick()} ${pick()} ${noise}`, topic, kind: "lexical" };
  });
}

/**
 * The same question in other words: for three of a topic's words, the vocabulary word whose embedding is nearest
 * to it, excluding the topic's own words and anything sharing their first four letters (which FTS5's porter
 * stemmer could match). The answer shares no word with the query, so only the semantic leg can find it, and
 * only as well as the embedder places near-synonyms.
 */
export function paraphraseQueries(
  corpus: GeneratedCorpus,
  vocabulary: readonly string[],
  embedder: BuiltinEmbedder,
  random: () => number,
  count: number,
): BenchQuery[] {
  const vectors = vocabulary.map((w) => embedder.embedText(w));
  const cache = new Map<string, string>();
  const neighbour = (word: string, topicWords: readonly string[]): string => {
    const key = `${word}|${topicWords.join(" ")}`;
    const known = cache.get(key);
    if (known !== undefined) return known;
    const target = embedder.embedText(word);
    const stems = topicWords.map((w) => w.slice(0, 4));
    let best = -2;
    let found = word;
    for (const [i, candidate] of vocabulary.entries()) {
      if (stems.includes(candidate.slice(0, 4))) continue;
      const score = dotProduct(target, vectors[i] as Float32Array);
      if (score > best) {
        best = score;
        found = candidate;
      }
    }
    cache.set(key, found);
    return found;
  };
  const sections = [...corpus.topicOf.values()];
  return Array.from({ length: count }, () => {
    const topic = pickTopic(sections, random);
    const words = corpus.topicWords[topic] as string[];
    const chosen = new Set<string>();
    for (let tries = 0; chosen.size < 3 && tries < 100; tries++)
      chosen.add(words[Math.floor(random() * words.length)] as string);
    const text = [...chosen].map((w) => neighbour(w, words)).join(" ");
    return { text, topic, kind: "paraphrase", paraphraseOf: [...chosen].join(" ") };
  });
}

/** The topic of a random section, so topics are asked about as often as they are written about. */
function pickTopic(sectionTopics: readonly number[], random: () => number): number {
  return sectionTopics[Math.floor(random() * sectionTopics.length)] as number;
}
