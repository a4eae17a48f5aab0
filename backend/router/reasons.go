package router

// Reasons written on receipts: why a harness did not answer, or why a
// rung of the ladder was skipped.
const (
	ReasonPlanDailyCap     = "harness_plan_daily_cap"
	ReasonOwnerDailyCap    = "harness_owner_daily_cap"
	ReasonPaused           = "harness_paused"
	ReasonNotAllowed       = "harness_not_allowed"
	ReasonCoolingDown      = "harness_cooling_down"
	ReasonTimeout          = "harness_timeout"
	ReasonError            = "harness_error"
	ReasonEmpty            = "harness_empty"
	ReasonOffline          = "harness_offline"
	ReasonCostCeiling      = "harness_cost_ceiling"
	ReasonTierUnavailable  = "router_tier_unavailable"
	ReasonVisitorsOff      = "harness_visitors_off"
	ReasonRefused          = "harness_refused"
	ReasonVisitorDailyCap  = "harness_visitor_daily_cap"
	ReasonNoConsent        = "no_consent"
	ReasonStoreUnavailable = "router_store_unavailable"

	// Ladder skips.
	SkipSwitchOff = "switch_off"
	SkipNoCeiling = "no_ceiling"
	SkipNoConsent = "no_consent"
)

// Who answered, besides a harness name.
const (
	AnsweredByTellMe = "tell_me"
	AnsweredByPerson = "person"
	AnsweredByNobody = "none"
)

// sentences say a reason in words, for tell_me.
var sentences = map[string]string{
	ReasonPlanDailyCap:    "today's allowance of routed turns is used up",
	ReasonOwnerDailyCap:   "the owner's daily limit of routed turns is reached",
	ReasonPaused:          "it is paused",
	ReasonNotAllowed:      "it is switched off",
	ReasonCoolingDown:     "it is cooling down after repeated failures",
	ReasonTimeout:         "it did not answer in time",
	ReasonError:           "it failed",
	ReasonEmpty:           "it gave no answer",
	ReasonOffline:         "it is offline",
	ReasonCostCeiling:     "its spending limit for today is reached",
	ReasonTierUnavailable: "that tier is not available",
	ReasonVisitorsOff:     "it does not take visitors' turns",
	ReasonRefused:         "it refused this turn",
	ReasonVisitorDailyCap: "it has taken today's visitor turns",
	ReasonNoConsent:       "it needs your consent first",
}

// isRefusal reports a harness's answer that it will not take this turn
// (visitors off, its visitors' cap, a refusal): not a failure of the
// harness, so its breaker hears nothing and a visitor's turn is given
// back.
func isRefusal(reason string) bool {
	return reason == ReasonRefused || reason == ReasonVisitorsOff || reason == ReasonVisitorDailyCap
}
