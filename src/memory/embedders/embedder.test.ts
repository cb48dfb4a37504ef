import { describe, expect, it } from "vitest";
import { embedderKey, parseEmbedderKey } from "./embedder.js";

describe("embedder keys", () => {
  it("reads back the space a key names, a model with slashes included", () => {
    for (const space of [
      { id: "builtin", model: "wink-sg100d-sif-abtt2-100000w+ngram28", dimensions: 128 },
      { id: "openai-compatible@127.0.0.1:8080", model: "BAAI/bge-small-en-v1.5", dimensions: 384 },
    ])
      expect(parseEmbedderKey(embedderKey(space))).toEqual(space);
  });

  it("refuses a key that does not name one", () => {
    for (const key of ["", "builtin", "builtin/model", "/model/3", "builtin/model/x", "builtin/model/0"])
      expect(parseEmbedderKey(key), key).toBeUndefined();
  });
});
