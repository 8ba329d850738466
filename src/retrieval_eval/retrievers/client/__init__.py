"""gRPC client side: channels, the retriever client, status-code translation."""
