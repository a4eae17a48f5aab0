package jsonscan

// Walking objects and arrays member by member. These methods are for
// text already known to be valid JSON (json.Valid): at the end of an
// object or array they report false, and on text that is not valid they
// report false as well, so a caller that did not check the text first
// cannot tell the two apart.

// Enter reads the opening byte (open: '{' or '[') of the next value;
// false, reading nothing, when the next value is something else.
func (s *Scanner) Enter(open byte) bool { return s.Next(open) }

// NextKey moves to the next member of the object the scanner is in, past
// its colon, and returns the member's key as Str does; ok is false at the
// end of the object (which is then read).
func (s *Scanner) NextKey() (key []byte, escaped, ok bool) {
	s.Next(',')
	if s.Next('}') {
		return nil, false, false
	}
	s.Space()
	key, escaped, ok = s.Str()
	if !ok || !s.Next(':') {
		return nil, false, false
	}
	s.Space()
	return key, escaped, true
}

// NextItem moves to the next item of the array the scanner is in; false
// at the end of the array (which is then read).
func (s *Scanner) NextItem() bool {
	s.Next(',')
	if s.Next(']') {
		return false
	}
	s.Space()
	return true
}
