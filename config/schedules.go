package config

import "cmp"

// Schedules bound and time users' schedules (package schedule).
type Schedules struct {
	// MaxPerUser is how many schedules one user may have (1..100000,
	// default 100).
	MaxPerUser int `yaml:"maxPerUser"`
	// MissedFires is what becomes of fires found more than
	// MissedAfterSeconds late: runOnce (default: one fire for all that
	// were missed) or skip.
	MissedFires string `yaml:"missedFires"`
	// MissedAfterSeconds is how late a fire may start before it counts as
	// missed (1..86400, default 60).
	MissedAfterSeconds float64 `yaml:"missedAfterSeconds"`
}

func (s *Schedules) defaults() {
	s.MaxPerUser = cmp.Or(s.MaxPerUser, 100)
	s.MissedFires = cmp.Or(s.MissedFires, "runOnce")
	s.MissedAfterSeconds = cmp.Or(s.MissedAfterSeconds, 60)
}

func (v *validator) schedules(s Schedules) {
	if v.d.set["server.schedules.maxPerUser"] && (s.MaxPerUser < 1 || s.MaxPerUser > 100_000) {
		v.problem("server.schedules.maxPerUser", "must be between 1 and 100000")
	}
	if v.d.set["server.schedules.missedFires"] && s.MissedFires != "runOnce" && s.MissedFires != "skip" {
		v.problem("server.schedules.missedFires", "must be runOnce or skip, got %s", v.show("server.schedules.missedFires", s.MissedFires))
	}
	if v.d.set["server.schedules.missedAfterSeconds"] && !(s.MissedAfterSeconds >= 1 && s.MissedAfterSeconds <= 86400) {
		v.problem("server.schedules.missedAfterSeconds", "must be between 1 and 86400")
	}
}
