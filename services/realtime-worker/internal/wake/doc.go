// Package wake finds wake words ("hey mithub", "헤이 밋허브", "밋허브야")
// in final transcript segments, tolerating small recognition errors, and
// decides which segments are questions to the bot: the rest of the segment
// after the wake word, or the same speaker's next final segment shortly
// after a bare wake word. Cooldowns and dedupe keep one question from
// triggering two answers.
package wake
