package fakemodel

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// maxRequestBytes bounds the request bodies the fake reads.
const maxRequestBytes = 32 << 20

// Server is a running fake Chat Completions endpoint.
type Server struct {
	// URL is the base URL to configure a client with, such as
	// http://127.0.0.1:40123/v1; requests go to URL + "/chat/completions".
	URL string

	httpServer *httptest.Server
	// closing is closed when the test ends, so that handlers waiting
	// between chunks return at once.
	closing chan struct{}

	mu       sync.Mutex
	queue    []Reply
	fallback func(req Request) Reply
	requests []Request
}

// Start starts a fake endpoint on 127.0.0.1; it is closed when the test
// ends. With nothing scripted it answers every request with the text "ok".
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{
		closing:  make(chan struct{}),
		fallback: func(Request) Reply { return Reply{Text: "ok"} },
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.serveCompletion)
	mux.HandleFunc("/", serveNotFound)
	s.httpServer = httptest.NewServer(mux) // httptest listens on 127.0.0.1
	s.URL = s.httpServer.URL + "/v1"
	t.Cleanup(s.close)
	return s
}

func (s *Server) close() {
	close(s.closing)
	s.httpServer.CloseClientConnections()
	s.httpServer.Close()
}

// Script queues replies: each request takes the next one, in order. Once
// the queue is empty the default reply (SetDefault) answers.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// SetDefault sets the reply used when the queue is empty; f sees the
// request it answers. The initial default is the text "ok".
func (s *Server) SetDefault(f func(req Request) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = f
}

// Requests returns every request received so far, in order (malformed
// ones included, with what could be decoded of them).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// record keeps req and picks its reply.
func (s *Server) record(req Request) Reply {
	s.mu.Lock()
	s.requests = append(s.requests, req)
	if len(s.queue) > 0 {
		next := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return next
	}
	fallback := s.fallback
	s.mu.Unlock()
	return fallback(req)
}

func (s *Server) serveCompletion(w http.ResponseWriter, r *http.Request) {
	req, err := readRequest(r, maxRequestBytes)
	reply := s.record(req)
	if err != nil {
		writeError(w, http.StatusBadRequest, "fakemodel: the request body is not a Chat Completions request: "+err.Error())
		return
	}
	s.answer(w, r, req, reply)
}

func serveNotFound(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "fakemodel: no route "+r.Method+" "+r.URL.Path+"; use POST /v1/chat/completions")
}
