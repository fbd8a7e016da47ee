// Package wake finds wake words ("hey mithub", "헤이 밋허브", "밋허브야")
// in final transcript segments with pkg/wakeword, and decides which
// segments are questions to the bot: the rest of the segment after the
// wake word, or the same speaker's next final segment shortly after a bare
// wake word. A re-sent segment never triggers twice; a question asked
// within the speaker's cooldown is marked queued (the session answers it
// after the answers in progress), and a repeat of the previous one within
// it is marked as such.
package wake
