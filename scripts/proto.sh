#!/usr/bin/env bash
# Regenerates the Go code for proto/**/*.proto into pkg/gen/ (committed).
#
# Needs protoc (Debian: apt-get install -y protobuf-compiler). protoc-gen-go is
# built at the pinned version below into a temporary directory, so the output
# does not depend on whatever plugin happens to be on PATH.
set -euo pipefail

readonly PROTOC_GEN_GO_VERSION=v1.36.12
readonly GO_MODULE=github.com/mithub/mithub/pkg/gen

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "${root}"

command -v protoc >/dev/null 2>&1 ||
  { echo "proto: protoc not found; install it with: apt-get install -y protobuf-compiler" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "${tmp}"' EXIT

echo "proto: building protoc-gen-go ${PROTOC_GEN_GO_VERSION}"
GOBIN="${tmp}" GOWORK=off \
  go install "google.golang.org/protobuf/cmd/protoc-gen-go@${PROTOC_GEN_GO_VERSION}"

mapfile -t files < <(cd proto && find . -name '*.proto' -printf '%P\n' | sort)
[[ "${#files[@]}" -gt 0 ]] || { echo "proto: no .proto files under proto/" >&2; exit 1; }

# go_package "github.com/mithub/mithub/pkg/gen/mithub/v1" lands in pkg/gen/mithub/v1.
mkdir -p pkg/gen
find pkg/gen -name '*.pb.go' -delete
protoc \
  --plugin=protoc-gen-go="${tmp}/protoc-gen-go" \
  --proto_path=proto \
  --go_out=pkg/gen \
  --go_opt=module="${GO_MODULE}" \
  "${files[@]}"

echo "proto: $(protoc --version), protoc-gen-go ${PROTOC_GEN_GO_VERSION}: generated ${#files[@]} file(s) into pkg/gen"
