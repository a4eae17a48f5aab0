package sse

// EventWithID writes one frame whose id is a string cursor (such as a
// session stream's "3.12") rather than a sequence: "event: <name>" when
// name is not empty, "id: <id>" when id is not empty, then the data line,
// flushed. Neither id nor data may contain newlines.
func (s *Writer) EventWithID(name, id string, data []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	b := make([]byte, 0, len(name)+len(id)+len(data)+24)
	if name != "" {
		b = append(append(append(b, "event: "...), name...), '\n')
	}
	if id != "" {
		b = append(append(append(b, "id: "...), id...), '\n')
	}
	b = append(append(append(b, "data: "...), data...), '\n', '\n')
	if _, err := s.w.Write(b); err != nil {
		s.err = err
		return err
	}
	s.flushLocked()
	if s.ka != nil {
		s.ka.Reset(s.kaD)
	}
	return s.err
}
