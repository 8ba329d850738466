#!/usr/bin/env node
// A retriever in Node.js that implements the reval contract (retrieval_eval.v1.Retriever).
//
// It loads the same .proto that reval uses at run time (no generated code), answers with
// an IDF-weighted keyword overlap over a small built-in document list, and registers the
// standard gRPC health and reflection services so that `reval check-retriever`, grpcurl
// and load balancers work.
//
//   node server.js [PORT]         PORT (or $PORT) defaults to 50051; 0 picks a free port
//   HOST=0.0.0.0 node server.js   bind elsewhere than 127.0.0.1
//   RETRIEVER_TOKEN=s3cret ...    require "authorization: Bearer s3cret" on every call
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const { HealthImplementation } = require('grpc-health-check');
const { ReflectionService } = require('@grpc/reflection');
const { version } = require('./package.json');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
const PROTO_FILE = 'retrieval_eval/v1/retriever.proto';
const SERVICE_NAME = 'retrieval_eval.v1.Retriever';
// The contract's limits, as retriever.proto states them (tests keep them equal to reval's).
const MAX_LIMIT = 1000;
const MAX_QUESTION_BYTES = 16 * 1024;
// Blank: only characters with Unicode's White_Space property, the list retriever.proto
// gives (String.prototype.trim() differs: it strips U+FEFF and keeps U+0085).
const BLANK = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/;

// --- The retriever: a tiny in-memory keyword-overlap ranker -----------------------------

const DOCUMENTS = [
  { id: 'doc-grpc', text: 'gRPC is a remote procedure call framework that uses HTTP/2 and protocol buffers.' },
  { id: 'doc-protobuf', text: 'Protocol buffers serialize structured data; a .proto file defines messages and services.' },
  { id: 'doc-bm25', text: 'BM25 is a lexical ranking function that scores documents by term frequency and inverse document frequency.' },
  { id: 'doc-embeddings', text: 'Dense retrieval embeds questions and documents as vectors and ranks them by cosine similarity.' },
  { id: 'doc-chunking', text: 'Chunking splits long documents into passages so that a retriever can match a specific part.' },
  { id: 'doc-reranker', text: 'A reranker reorders the first results of a retriever with a slower, more accurate model.' },
  { id: 'doc-hit-rate', text: 'Hit rate at k counts the questions whose expected document appears among the first k results.' },
  { id: 'doc-golden-set', text: 'A golden question set pairs questions with the documents that answer them, labelled once.' },
  { id: 'doc-regression', text: 'A regression is a drop in hit rate against a baseline run of the same question set.' },
  { id: 'doc-nodejs', text: 'Node.js runs JavaScript on the server with an event loop and non-blocking input and output.' },
  { id: 'doc-health', text: 'The gRPC health checking protocol lets load balancers ask whether a server is serving.' },
  { id: 'doc-deadline', text: 'A deadline bounds how long a client waits for a call before it fails with DEADLINE_EXCEEDED.' },
];

const STOPWORDS = new Set(
  'a an and are as at be by does for from how in is it of on or so that the their them this to what when whether which who why with'.split(' '),
);

function terms(text) {
  return (text.toLowerCase().match(/[a-z0-9]+/g) || []).filter((t) => !STOPWORDS.has(t));
}

const INDEX = DOCUMENTS.map((doc) => ({ id: doc.id, terms: new Set(terms(doc.text)) }));
const IDF = new Map();
for (const doc of INDEX) {
  for (const term of doc.terms) IDF.set(term, (IDF.get(term) || 0) + 1);
}
for (const [term, df] of IDF) IDF.set(term, Math.log(1 + DOCUMENTS.length / df));

// Best first: the summed IDF of the question terms a document contains; ties by id.
function retrieve(question, limit) {
  const wanted = new Set(terms(question));
  const scored = [];
  for (const doc of INDEX) {
    let score = 0;
    for (const term of wanted) if (doc.terms.has(term)) score += IDF.get(term);
    if (score > 0) scored.push({ document_id: doc.id, score });
  }
  scored.sort((a, b) => b.score - a.score || (a.document_id < b.document_id ? -1 : 1));
  return scored.slice(0, limit);
}

const CORPUS_REVISION = crypto
  .createHash('sha256')
  .update(JSON.stringify(DOCUMENTS))
  .digest('hex')
  .slice(0, 12);

// --- The gRPC service --------------------------------------------------------------------

function invalidArgument(callback, message) {
  callback({ code: grpc.status.INVALID_ARGUMENT, details: message });
}

function authorized(call, callback, token) {
  if (!token) return true;
  const [header] = call.metadata.get('authorization');
  if (header === `Bearer ${token}`) return true;
  callback({ code: grpc.status.UNAUTHENTICATED, details: 'missing or wrong bearer token' });
  return false;
}

function retrieverService(token) {
  return {
    Retrieve(call, callback) {
      if (!authorized(call, callback, token)) return;
      const { question, limit } = call.request;
      if (!question) return invalidArgument(callback, 'question must not be empty');
      if (BLANK.test(question)) return invalidArgument(callback, 'question must not be blank (only white space)');
      if (Buffer.byteLength(question, 'utf8') > MAX_QUESTION_BYTES) {
        return invalidArgument(callback, `question is longer than ${MAX_QUESTION_BYTES} bytes`);
      }
      if (!(limit >= 1 && limit <= MAX_LIMIT)) {
        return invalidArgument(callback, `limit must be between 1 and ${MAX_LIMIT}, got ${limit}`);
      }
      callback(null, { results: retrieve(question, limit) });
    },
    Describe(call, callback) {
      if (!authorized(call, callback, token)) return;
      callback(null, {
        identifier: 'node-keyword-overlap',
        version,
        chunk_separator: '',
        provenance: { corpus_revision: CORPUS_REVISION, pipeline: 'idf-weighted keyword overlap' },
        metadata: { language: 'javascript', documents: String(DOCUMENTS.length) },
      });
    },
  };
}

function main() {
  const port = Number(process.argv[2] ?? process.env.PORT ?? 50051);
  const host = process.env.HOST || '127.0.0.1';
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`invalid port ${process.argv[2] ?? process.env.PORT}`);
    process.exit(2);
  }
  const packageDefinition = protoLoader.loadSync(PROTO_FILE, {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    defaults: true,
  });
  const proto = grpc.loadPackageDefinition(packageDefinition);
  const server = new grpc.Server();
  server.addService(proto.retrieval_eval.v1.Retriever.service, retrieverService(process.env.RETRIEVER_TOKEN));
  const health = new HealthImplementation({ '': 'SERVING', [SERVICE_NAME]: 'SERVING' });
  health.addToServer(server);
  new ReflectionService(packageDefinition).addToServer(server);

  server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (error, boundPort) => {
    if (error) {
      console.error(`cannot bind ${host}:${port}: ${error.message}`);
      process.exit(1);
    }
    console.log(`listening on ${host}:${boundPort}`);
  });

  const stop = (signal) => {
    health.setStatus('', 'NOT_SERVING');
    health.setStatus(SERVICE_NAME, 'NOT_SERVING');
    const force = setTimeout(() => server.forceShutdown(), 2000);
    server.tryShutdown(() => {
      clearTimeout(force);
      console.log(`stopped (${signal})`);
      process.exit(0);
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

if (require.main === module) main();

module.exports = { retrieve, DOCUMENTS };
