"""The ``langchain`` kind: a LangChain retriever object, built by a factory you name."""
