package relay

import (
	"net/http"
	"strconv"
)

// pairingRequest is the body of the owner's POST pairings: a name, and a
// kind or a recipe (whose id is then the kind).
type pairingRequest struct {
	Name   string
	Kind   string
	Recipe string
}

func decodePairing(body []byte) (pairingRequest, *bodyError) {
	const code = "invalid_request"
	obj, err := object(body, code, "name", "kind", "recipe")
	if err != nil {
		return pairingRequest{}, err
	}
	var req pairingRequest
	if req.Name, err = str(obj, "name", code, true); err != nil {
		return req, err
	}
	if req.Recipe, err = str(obj, "recipe", code, false); err != nil {
		return req, err
	}
	_, hasRecipe := obj["recipe"]
	_, hasKind := obj["kind"]
	if req.Kind, err = str(obj, "kind", code, !hasRecipe); err != nil {
		return req, err
	}
	if !hasKind {
		// The kind is the recipe's id, which the handler looks up.
		req.Kind = req.Recipe
		return req, plainText(req.Name, 80, "name", code)
	}
	return req, checkName(req.Name, req.Kind, code)
}

// checkPairingRecipe checks a pairing code's recipe: one the relay offers
// (400 unknown_recipe), with a door (400 recipe_no_door), and the kind,
// when one was given too, its id (400 recipe_kind_mismatch).
func (r *Relay) checkPairingRecipe(p pairingRequest) *bodyError {
	rc, ok := r.recipes().Get(p.Recipe)
	if !ok {
		return &bodyError{status: http.StatusBadRequest, code: "unknown_recipe",
			detail: "No recipe has the id " + quoted(p.Recipe) + "; list them with GET /owner/outside-agents/recipes."}
	}
	if !rc.Pairable() {
		return &bodyError{status: http.StatusBadRequest, code: "recipe_no_door",
			detail: "The recipe " + quoted(p.Recipe) + " has no supported door (no-supported-door): no code can pair it."}
	}
	if p.Kind != rc.ID {
		return &bodyError{status: http.StatusBadRequest, code: "recipe_kind_mismatch",
			detail: "A code for the recipe " + quoted(p.Recipe) + " has the kind " + quoted(rc.ID) + "; leave kind out or set it to the recipe's id."}
	}
	return nil
}

// quoted quotes a value from the request for a message, shortened.
func quoted(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return strconv.Quote(s)
}
