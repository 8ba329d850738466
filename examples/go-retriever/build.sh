#!/bin/sh
# Build the Go example retriever offline with Debian's Go toolchain and grpc-go packages
# (golang-go, golang-google-grpc-dev, golang-google-protobuf-dev,
# golang-github-golang-protobuf-1-5-dev): GOPATH mode over /usr/share/gocode, so neither
# the module proxy nor any network is used.
#
#   sh examples/go-retriever/build.sh [OUT]    OUT defaults to examples/go-retriever/go-retriever
#
# The generated package comes from the repository's gen/go (checked in; regenerate with
# python tools/gen_proto.py --go). Repeated builds are fast: Go's build cache keeps every
# compiled package (-trimpath keeps the cache keys free of this script's temporary paths).
set -eu
here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
out=${1:-$here/go-retriever}
case $out in /*) ;; *) out=$PWD/$out ;; esac
gocode=${GOCODE:-/usr/share/gocode}
if ! [ -d "$gocode/src/google.golang.org/grpc" ]; then
  echo "build.sh: grpc-go is not in $gocode; apt-get install golang-google-grpc-dev" >&2
  exit 2
fi
if [ -e "$gocode/src/github.com/golang/protobuf/proto/table_unmarshal.go" ]; then
  # grpc-go's codec goes through github.com/golang/protobuf: 1.3 compiles but panics on
  # the first call with code from today's protoc-gen-go.
  echo "build.sh: $gocode holds github.com/golang/protobuf 1.3;" \
    "apt-get install golang-github-golang-protobuf-1-5-dev" >&2
  exit 2
fi
gopath=$(mktemp -d)
trap 'rm -rf "$gopath"' EXIT
mkdir -p "$gopath/src/retrievaleval.dev/reval/examples"
ln -s "$repo/gen" "$gopath/src/retrievaleval.dev/reval/gen"
ln -s "$here" "$gopath/src/retrievaleval.dev/reval/examples/go-retriever"
cd "$gopath/src/retrievaleval.dev/reval/examples/go-retriever"
GO111MODULE=off GOPATH="$gopath:$gocode" GOFLAGS= GOPROXY=off GONOSUMDB= GOSUMDB=off \
  go build -trimpath -o "$out" .
