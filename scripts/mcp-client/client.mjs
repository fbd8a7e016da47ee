// Drives `mithubctl mcp` over stdio with the official MCP TypeScript SDK
// client: lists the tools, calls each one, reads the resource and checks
// the results. Run by scripts/test-mcp-client.sh, which starts agent-api,
// replays a meeting and sets:
//   MITHUBCTL            path to the mithubctl binary
//   MEETING_ID           a meeting with transcripts
//   MEETING_FILE         the meeting replayed (.jsonl or QMSum .json); its
//                        turns also fill the conversation
//   MITHUB_API_URL, MITHUB_API_KEY, MITHUB_DATABASE_URL, MITHUB_LLM_CONTEXT_WINDOW
import { readFileSync } from "node:fs";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const meetingId = env("MEETING_ID");
const window = Number(env("MITHUB_LLM_CONTEXT_WINDOW"));

const transport = new StdioClientTransport({
  command: env("MITHUBCTL"),
  args: ["mcp"],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "mithub-ts-test", version: "1.0.0" });
await client.connect(transport);

let checks = 0;
const ok = (msg) => {
  checks++;
  console.log(`ok ${checks} - ${msg}`);
};

// call returns the tool's structured result; it fails on a tool error.
async function call(name, args = {}) {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) {
    throw new Error(`${name}(${JSON.stringify(args).slice(0, 200)}) failed: ${res.content?.[0]?.text}`);
  }
  assert.ok(res.structuredContent, `${name} has structured content`);
  const text = res.content.find((c) => c.type === "text")?.text;
  assert.deepEqual(JSON.parse(text), res.structuredContent, `${name}: text content is the JSON of the result`);
  return res.structuredContent;
}

try {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name).sort();
  assert.deepEqual(names, [
    "meeting_ask", "meeting_list", "meeting_topics", "memory_add_message", "memory_get_context",
    "memory_get_stats", "memory_list_conversations", "memory_search", "memory_should_compress",
    "memory_start_conversation",
  ]);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object", `${t.name} has an object input schema`);
    assert.ok(t.description.length > 20, `${t.name} is described`);
  }
  ok(`lists ${names.length} tools`);

  // A long conversation: the meeting's turns until past 70% of the window.
  const file = env("MEETING_FILE");
  const text = readFileSync(file, "utf8");
  const turns = file.endsWith(".jsonl")
    ? text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l)).map((u) => ({ speaker: u.speaker_name, content: u.text }))
    : JSON.parse(text).meeting_transcripts;
  let added;
  let n = 0;
  for (const turn of turns) {
    if (!turn.content.trim()) continue;
    added = await call("memory_add_message", { role: turn.speaker, content: turn.content });
    assert.equal(added.seq, n++, "messages get consecutive positions");
    if (added.should_compress) break;
  }
  assert.ok(added.should_compress, "the conversation grew past the threshold");
  added = await call("memory_add_message", { role: "user", content: "결정: 사내 해커톤은 11월 셋째 주 목요일로 확정" });
  const conv = added.conversation_id;
  ok(`memory_add_message stored ${n + 1} messages in ${conv}`);

  const should = await call("memory_should_compress", {});
  assert.equal(should.should_compress, true);
  assert.ok(should.current_tokens > 0.7 * window, `live ${should.current_tokens} > 70% of ${window}`);
  assert.equal(should.context_window, window);
  ok(`memory_should_compress: ${should.current_tokens} live tokens > ${should.threshold_tokens}`);

  const ctx = await call("memory_get_context", {});
  assert.equal(ctx.compression, "done");
  assert.ok(ctx.tokens <= window / 10, `context ${ctx.tokens} <= 10% of the window`);
  assert.ok(ctx.summaries > 0 && ctx.recent_turns > 0, "summaries and recent turns");
  assert.ok(ctx.text.includes("11월 셋째 주"), "the newest message is verbatim in the context");
  assert.equal(ctx.items.at(-1).kind, "turn");
  ok(`memory_get_context: ${ctx.raw_tokens} -> ${ctx.tokens} tokens (${ctx.summaries} summaries, ${ctx.recent_turns} turns)`);

  const after = await call("memory_should_compress", { conversation_id: conv });
  assert.equal(after.should_compress, false, "compressed below the threshold");
  ok("memory_should_compress is false after compressing");

  const found = await call("memory_search", { query: "해커톤은 언제", k: 3 });
  assert.ok(found.hits.length > 0 && found.hits[0].text.includes("목요일"), JSON.stringify(found.hits[0]));
  ok(`memory_search found "${found.hits[0].text}"`);

  const stats = await call("memory_get_stats", { conversation_id: conv });
  assert.equal(stats.turns, n + 1);
  assert.ok(stats.levels >= 1 && stats.compression_ratio < 0.2, JSON.stringify(stats));
  ok(`memory_get_stats: ${stats.turns} turns, ratio ${stats.compression_ratio.toFixed(3)}`);

  const list = await call("meeting_list", { limit: 10 });
  const m = list.meetings.find((x) => x.id === meetingId);
  assert.ok(m, "the replayed meeting is listed");
  assert.ok(m.counters.utterances > 0);
  ok(`meeting_list: ${list.meetings.length} meeting(s), ${m.counters.utterances} utterances`);

  const topics = await call("meeting_topics", { meeting_id: meetingId });
  assert.equal(topics.meeting_id, meetingId);
  const hits = await call("meeting_topics", { meeting_id: meetingId, query: "staged rollout crash-free rate", k: 3 });
  assert.ok(Array.isArray(hits.results));
  ok(`meeting_topics: ${(topics.topics ?? []).length} topics, ${hits.results.length} search results`);

  const ans = await call("meeting_ask", { meeting_id: meetingId, question: "What did they decide?" });
  assert.ok(ans.answer.length > 0 && ans.provider, JSON.stringify(ans).slice(0, 300));
  assert.ok(Array.isArray(ans.citations));
  ok(`meeting_ask answered (${ans.provider}, ${ans.citations.length} citations)`);

  const resource = await client.readResource({ uri: "memory://context/current" });
  const doc = JSON.parse(resource.contents[0].text);
  assert.equal(doc.conversation_id, conv);
  assert.equal(doc.text, ctx.text);
  ok("memory://context/current is the current conversation's context");

  const bad = await client.callTool({ name: "memory_add_message", arguments: { role: "user" } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /content/);
  const badAsk = await client.callTool({ name: "meeting_ask", arguments: { meeting_id: "nope", question: "?" } });
  assert.equal(badAsk.isError, true);
  assert.match(badAsk.content[0].text, /not a UUID/);
  ok("invalid inputs are tool errors that say what is wrong");
  console.log(`all ${checks} checks passed`);
} finally {
  await client.close();
}
