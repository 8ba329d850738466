// Command go-retriever is a retriever in Go that implements the reval contract
// (retrieval_eval.v1.Retriever) with grpc-go and the checked-in generated code.
//
// It ranks a JSONL corpus (one {"_id", "title", "text"} object a line, as BEIR and reval's
// example data write it) by keyword overlap with integer weights, and registers standard
// gRPC health checking and server reflection so that `reval check-retriever`, grpcurl and
// load balancers work.
//
//	go-retriever -corpus FILE [PORT]   PORT (or $PORT) defaults to 50051; 0 picks a free one
//	HOST=0.0.0.0 go-retriever ...      bind elsewhere than 127.0.0.1
//	RETRIEVER_TOKEN=s3cret ...         require "authorization: Bearer s3cret" on every call
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"

	pb "retrievaleval.dev/reval/gen/go/retrieval_eval/v1"
)

const (
	version     = "0.1.0"
	serviceName = "retrieval_eval.v1.Retriever"
	// The contract's limits, as retriever.proto states them (tests keep them equal to reval's).
	minLimit         = 1
	maxLimit         = 1000
	maxQuestionBytes = 16 * 1024
)

// requestProblem is the INVALID_ARGUMENT message for a request outside the contract, or "".
// Blank is unicode.IsSpace throughout: exactly the White_Space list the proto gives.
func requestProblem(question string, limit uint32) string {
	switch {
	case question == "":
		return "question must not be empty"
	case strings.TrimFunc(question, unicode.IsSpace) == "":
		return "question must not be blank (only white space)"
	case limit < minLimit || limit > maxLimit:
		return fmt.Sprintf("limit must be in [%d, %d], got %d", minLimit, maxLimit, limit)
	case len(question) > maxQuestionBytes:
		return fmt.Sprintf("question is %d bytes, more than the %d-byte maximum", len(question), maxQuestionBytes)
	case !utf8.ValidString(question):
		return "question is not valid UTF-8"
	}
	return ""
}

type retrieverServer struct {
	pb.UnimplementedRetrieverServer
	index *Index
}

func (s *retrieverServer) Retrieve(_ context.Context, req *pb.RetrieveRequest) (*pb.RetrieveResponse, error) {
	if problem := requestProblem(req.GetQuestion(), req.GetLimit()); problem != "" {
		return nil, status.Error(codes.InvalidArgument, problem)
	}
	hits := s.index.Search(req.GetQuestion(), int(req.GetLimit()))
	results := make([]*pb.RetrievedItem, len(hits))
	for i, hit := range hits {
		score := float64(hit.Score)
		results[i] = &pb.RetrievedItem{DocumentId: hit.ID, Score: &score}
	}
	return &pb.RetrieveResponse{Results: results}, nil
}

func (s *retrieverServer) Describe(context.Context, *pb.DescribeRequest) (*pb.DescribeResponse, error) {
	return &pb.DescribeResponse{
		Identifier: "go-keyword-overlap",
		Version:    version,
		Provenance: &pb.Provenance{CorpusRevision: s.index.Revision, Pipeline: "integer-idf keyword overlap"},
		Metadata:   map[string]string{"language": "go", "documents": strconv.Itoa(len(s.index.docs))},
	}, nil
}

// bearerToken refuses Retriever calls without "authorization: Bearer TOKEN"; health and
// reflection stay open, as load balancers and grpcurl expect.
func bearerToken(token string) grpc.UnaryServerInterceptor {
	want := "Bearer " + token
	return func(ctx context.Context, req interface{}, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (interface{}, error) {
		if strings.HasPrefix(info.FullMethod, "/"+serviceName+"/") {
			md, _ := metadata.FromIncomingContext(ctx)
			if got := md.Get("authorization"); len(got) != 1 || got[0] != want {
				return nil, status.Error(codes.Unauthenticated, "missing or wrong bearer token")
			}
		}
		return handler(ctx, req)
	}
}

func main() {
	corpus := flag.String("corpus", "", "JSONL corpus to rank (required)")
	flag.Parse()
	if *corpus == "" {
		fail(2, "usage: go-retriever -corpus FILE [PORT]")
	}
	portText := flag.Arg(0)
	if portText == "" {
		portText = os.Getenv("PORT")
	}
	if portText == "" {
		portText = "50051"
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		fail(2, fmt.Sprintf("invalid port %q", portText))
	}
	index, err := LoadIndex(*corpus)
	if err != nil {
		fail(2, err.Error())
	}
	host := os.Getenv("HOST")
	if host == "" {
		host = "127.0.0.1"
	}
	listener, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		fail(1, fmt.Sprintf("cannot bind %s:%d: %v", host, port, err))
	}

	var options []grpc.ServerOption
	if token := os.Getenv("RETRIEVER_TOKEN"); token != "" {
		options = append(options, grpc.UnaryInterceptor(bearerToken(token)))
	}
	server := grpc.NewServer(options...)
	pb.RegisterRetrieverServer(server, &retrieverServer{index: index})
	healthServer := health.NewServer()
	healthServer.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthServer.SetServingStatus(serviceName, healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(server, healthServer)
	reflection.Register(server)

	stopped := make(chan string, 1)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		sig := <-signals
		healthServer.Shutdown() // NOT_SERVING, so load balancers drain us first
		done := make(chan struct{})
		go func() { server.GracefulStop(); close(done) }()
		select {
		case <-done:
		case <-time.After(2 * time.Second):
			server.Stop()
		}
		stopped <- map[os.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGINT: "SIGINT"}[sig]
	}()

	fmt.Printf("listening on %s\n", listener.Addr())
	// A signal that lands between the line above and Serve stops the server before it
	// serves: Serve then returns ErrServerStopped, which is that clean stop, not a failure.
	if err := server.Serve(listener); err != nil && err != grpc.ErrServerStopped {
		fail(1, err.Error())
	}
	fmt.Printf("stopped (%s)\n", <-stopped)
}

func fail(code int, message string) {
	fmt.Fprintln(os.Stderr, "go-retriever: "+message)
	os.Exit(code)
}
