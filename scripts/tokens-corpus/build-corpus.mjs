// Builds pkg/tokens/testdata/corpus.txt: the hand-written Korean/English
// meeting lines in handwritten.txt, then 250 turns sampled at an even stride
// from the QMSum val split. One JSON string per line.
//
//   node build-corpus.mjs            (QMSum from $MITHUB_QMSUM_DIR or ../shared/data/qmsum)

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const SAMPLES = 250;

const root = fileURLToPath(new URL("../../", import.meta.url));
const qmsumDir = process.env.MITHUB_QMSUM_DIR || join(root, "..", "shared", "data", "qmsum");
const out = join(root, "pkg", "tokens", "testdata", "corpus.txt");

const handwritten = readFileSync(new URL("handwritten.txt", import.meta.url), "utf8")
  .split("\n")
  .filter((line) => line !== "")
  .map((line) => JSON.parse(line));

const valDir = join(qmsumDir, "val");
const turns = [];
for (const file of readdirSync(valDir).filter((f) => f.endsWith(".json")).sort()) {
  const meeting = JSON.parse(readFileSync(join(valDir, file), "utf8"));
  for (const turn of meeting.meeting_transcripts) {
    if (turn.content.trim() !== "") turns.push(turn.content);
  }
}
if (turns.length < SAMPLES) {
  throw new Error(`${valDir}: ${turns.length} turns, need ${SAMPLES}`);
}
const sampled = Array.from({ length: SAMPLES }, (_, k) => turns[Math.floor(((k + 0.5) * turns.length) / SAMPLES)]);

const lines = [...handwritten, ...sampled].map((text) => JSON.stringify(text));
writeFileSync(out, lines.join("\n") + "\n");
console.log(`${out}: ${handwritten.length} hand-written + ${sampled.length} QMSum lines`);
