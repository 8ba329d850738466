// A retriever for reval's `command` kind in Node.js: JSON lines on stdin/stdout, no gRPC.
//
//   node examples/command-retriever/retriever.js CORPUS.jsonl
//
// The same ranking as retriever.py beside it: documents by the number of distinct
// question words they contain, ties by id; each answer echoes its request's id, in the
// order asked. Standard library only.
"use strict";

const fs = require("fs");
const readline = require("readline");

const words = (text) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) || []);

const documents = fs
  .readFileSync(process.argv[2], "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line))
  .map((doc) => [doc._id, words(`${doc.title || ""} ${doc.text}`)]);

const lines = readline.createInterface({ input: process.stdin, terminal: false });
lines.on("line", (line) => {
  let request, asked, limit;
  try {
    request = JSON.parse(line);
    asked = words(request.question);
    limit = request.limit;
  } catch (e) {
    const failed = { error: `bad request: ${e.message}` };
    if (request && request.id !== undefined) failed.id = request.id;
    process.stdout.write(JSON.stringify(failed) + "\n");
    return;
  }
  const ranked = documents
    .map(([id, terms]) => [[...asked].filter((w) => terms.has(w)).length, id])
    .filter(([score]) => score > 0)
    .sort((a, b) => b[0] - a[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .slice(0, limit);
  const results = ranked.map(([score, id]) => ({ document_id: id, score }));
  process.stdout.write(JSON.stringify({ id: request.id, results }) + "\n");
});
