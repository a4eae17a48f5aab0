package runtime

// Within is the journal seen by a backend that another backend runs (a
// router's rung): the same resume points, with every key it recalls and
// records under scope (such as "rung/model/"), so that the keys of two
// inner backends never meet and the outer backend's own keys stay its
// own. Within of a nil Journal is nil (it recalls and records nothing).
func (j *Journal) Within(scope string) *Journal {
	if j == nil {
		return nil
	}
	inner := *j
	inner.scope = j.scope + scope
	return &inner
}
