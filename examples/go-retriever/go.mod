// The Go example retriever. Built offline by build.sh (GOPATH mode over Debian's
// packages); with the module proxy, `go build` here uses these requirements instead.
module retrievaleval.dev/reval/examples/go-retriever

go 1.19

require (
	google.golang.org/grpc v1.33.3
	retrievaleval.dev/reval/gen/go v0.0.0
)

replace retrievaleval.dev/reval/gen/go => ../../gen/go
