"""The retriever contract: its limits, the rules a response must keep, and the checker."""
