"""The ``llamaindex`` kind: a LlamaIndex retriever object, built by a factory you name."""
