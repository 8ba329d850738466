// The generated Go code of the retriever contract (proto/retrieval_eval/v1), checked in
// so that Go code imports it without running protoc; regenerate it with
// python tools/gen_proto.py --go. The versions are those it is built and tested with
// (Debian 12's packages); newer ones work as Go's minimal version selection allows.
module retrievaleval.dev/reval/gen/go

go 1.19

require (
	google.golang.org/grpc v1.33.3
	google.golang.org/protobuf v1.28.1
)
