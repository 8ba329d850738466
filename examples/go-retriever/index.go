package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
)

// The retriever: keyword overlap with integer weights over an in-memory corpus. Replace
// Search with a call to your own search; the gRPC side (main.go) stays the same.
//
// Terms are runs of ASCII letters and digits, lower-cased, minus a few stop words. A
// document scores, for each distinct question term it contains, the number of documents
// divided (integer division) by the number holding that term. Best score first, ties by
// id; documents that share no term are not returned, so an answer may be shorter than
// the limit. Integer weights keep the ranking exact in any language.

var stopwords = map[string]bool{}

func init() {
	for _, w := range []string{
		"a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
		"how", "i", "if", "in", "is", "it", "my", "of", "on", "or", "so", "that", "the",
		"their", "them", "this", "to", "what", "when", "whether", "which", "who", "why",
		"with", "you", "your",
	} {
		stopwords[w] = true
	}
}

// Terms are the distinct terms of text, in order of first appearance.
func Terms(text string) []string {
	var terms []string
	seen := map[string]bool{}
	word := make([]byte, 0, 32)
	flush := func() {
		if len(word) > 0 && !stopwords[string(word)] && !seen[string(word)] {
			seen[string(word)] = true
			terms = append(terms, string(word))
		}
		word = word[:0]
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c >= 'A' && c <= 'Z':
			word = append(word, c+('a'-'A'))
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			word = append(word, c)
		default:
			flush()
		}
	}
	flush()
	return terms
}

type document struct {
	id    string
	terms map[string]bool
}

// Index holds the corpus' terms and their integer weights.
type Index struct {
	docs     []document
	weight   map[string]int
	Revision string // the first 12 hex digits of the corpus file's SHA-256
}

// Hit is one ranked document.
type Hit struct {
	ID    string
	Score int
}

// LoadIndex reads a JSONL corpus; an error names the file and line.
func LoadIndex(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the corpus: %v", err)
	}
	digest := sha256.Sum256(data)
	scanner := bufio.NewScanner(bytes.NewReader(data))
	scanner.Buffer(make([]byte, 1<<20), 64<<20)
	index := &Index{weight: map[string]int{}}
	seen := map[string]bool{}
	for line := 1; scanner.Scan(); line++ {
		if len(scanner.Bytes()) == 0 {
			continue
		}
		var row struct {
			ID    *string `json:"_id"`
			Title string  `json:"title"`
			Text  string  `json:"text"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &row); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		if row.ID == nil || *row.ID == "" || seen[*row.ID] {
			return nil, fmt.Errorf("%s:%d: missing, empty or repeated \"_id\"", path, line)
		}
		seen[*row.ID] = true
		doc := document{id: *row.ID, terms: map[string]bool{}}
		for _, term := range Terms(row.Title + " " + row.Text) {
			doc.terms[term] = true
		}
		index.docs = append(index.docs, doc)
	}
	if err := scanner.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(index.docs) == 0 {
		return nil, fmt.Errorf("%s: no documents", path)
	}
	df := map[string]int{}
	for _, doc := range index.docs {
		for term := range doc.terms {
			df[term]++
		}
	}
	for term, n := range df {
		index.weight[term] = len(index.docs) / n
	}
	index.Revision = hex.EncodeToString(digest[:])[:12]
	return index, nil
}

// Search ranks the documents for question, best first, at most limit of them.
func (index *Index) Search(question string, limit int) []Hit {
	wanted := Terms(question)
	var hits []Hit
	for _, doc := range index.docs {
		score := 0
		for _, term := range wanted {
			if doc.terms[term] {
				score += index.weight[term]
			}
		}
		if score > 0 {
			hits = append(hits, Hit{doc.id, score})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}
