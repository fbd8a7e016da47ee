#!/usr/bin/env bash
# The realtime worker's own speech-to-text, with real components (LiveKit,
# agent-api, PostgreSQL, Redis): espeak-ng voices published as microphone
# tracks. Prints pocketsphinx's word error rate and CPU per speaker, end of
# voice -> row in PostgreSQL for 4 concurrent speakers (pocketsphinx) and
# for the openai path against a local server.
set -euo pipefail
cd "$(dirname "$0")/.."
MITHUB_TEST_LIVEKIT_BIN=${MITHUB_TEST_LIVEKIT_BIN:-$(bash scripts/livekit.sh)}
export MITHUB_TEST_LIVEKIT_BIN MITHUB_REQUIRE_DATA=1
cd services/realtime-worker
{
  go test -count=1 -v -run 'TestPocketSphinxRecognisesSynthesisedSpeech' ./internal/stt/
  go test -count=1 -v -run 'TestPocketSphinxTranscribesMicrophones|TestOpenAITranscribesMicrophones' ./internal/app/
} 2>&1 | grep -E 'WER|end of speech|^(--- |ok|FAIL)'
