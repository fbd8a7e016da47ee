// Package prdoc builds the post-meeting report ("PR") of a meeting from
// its transcript turns and its L1 topics: the agenda, decisions, action
// items (with their owner and, when stated, due date), open questions and
// the updates it proposes to the team memory bank; it renders the report
// as Markdown and merges approved updates into memory-bank categories.
//
// Two Extractors share one document shape:
//
//   - Local uses no model. The agenda is the topic list (turns after the
//     last topic are segmented and summarised with the local provider, so
//     every turn is on the agenda). Decisions, action items and questions
//     come from Korean and English cue rules applied sentence by sentence:
//     "we decided", "let's go with", "하기로 했습니다", "결정" for
//     decisions; "I'll", "can you", "제가 …하겠습니다", "해 주세요" for
//     actions, whose owner is the speaker, a speaker named in the
//     sentence, or the one who answers a request; "by Friday", "다음 주
//     월요일까지" for due dates, resolved against the meeting date.
//   - LLM maps over the topics, packed into prompts that fit the model's
//     token budget, asks a chat model for JSON, reads it leniently, and
//     reduces the answers into one document (duplicates dropped, owners
//     matched to speakers). A part whose answer cannot be used falls back
//     to the cue rules for that part.
package prdoc
