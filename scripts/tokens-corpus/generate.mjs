// Writes pkg/tokens/testdata/corpus_counts.tsv: for each line of corpus.txt
// (a JSON string), "<cl100k_base count>\t<o200k_base count>", counted by
// js-tiktoken. Special-token text such as "<|endoftext|>" counts as ordinary
// text, as pkg/tokens does.
//
//   npm ci && node generate.mjs

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";

const root = fileURLToPath(new URL("../../", import.meta.url));
const dir = join(root, "pkg", "tokens", "testdata");

const encodings = ["cl100k_base", "o200k_base"].map((name) => getEncoding(name));
const count = (enc, text) => enc.encode(text, [], []).length;

const lines = readFileSync(join(dir, "corpus.txt"), "utf8").split("\n");
if (lines.at(-1) === "") lines.pop();
const rows = lines.map((line, i) => {
  let text;
  try {
    text = JSON.parse(line);
  } catch (err) {
    throw new Error(`corpus.txt:${i + 1}: ${err.message}`);
  }
  if (typeof text !== "string") throw new Error(`corpus.txt:${i + 1}: not a JSON string`);
  return encodings.map((enc) => count(enc, text)).join("\t");
});
writeFileSync(join(dir, "corpus_counts.tsv"), rows.join("\n") + "\n");
console.log(`corpus_counts.tsv: ${rows.length} lines`);
