package openaiapi

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/harnest/harnest/internal/httpapi"
)

// model is one entry of GET /v1/models: the agent, as a model.
type model struct {
	ID      string `json:"id"`
	Object  string `json:"object"` // always "model"
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

// modelList is the answer of GET /v1/models.
type modelList struct {
	Object string  `json:"object"` // always "list"
	Data   []model `json:"data"`
}

func (d *door) agentModel() model {
	return model{ID: d.model, Object: "model", Created: d.created, OwnedBy: "harnest"}
}

// listModels answers GET /v1/models: one model, the agent.
func (d *door) listModels(w http.ResponseWriter) {
	writeJSON(w, modelList{Object: "list", Data: []model{d.agentModel()}})
}

// getModel answers GET /v1/models/{id}.
func (d *door) getModel(w http.ResponseWriter, id string) {
	if id != d.model {
		writeFailure(w, http.StatusNotFound, d.modelNotFound(id, nil))
		return
	}
	writeJSON(w, d.agentModel())
}

// modelNotFound is the 404 of a model other than the agent.
func (d *door) modelNotFound(id string, param *string) failure {
	return failure{Type: typeInvalidRequest, Code: "model_not_found", Param: param,
		Message: "The model " + strconv.Quote(id) + " does not exist: this server serves one model, " + strconv.Quote(d.model) + " (see GET /v1/models)"}
}

// writeJSON answers 200 with v as JSON (httpapi.WriteRaw); a value that
// cannot be encoded is a 500 in OpenAI's error shape.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeFailure(w, http.StatusInternalServerError, failure{Type: typeServer, Code: "internal_error", Message: "Internal server error"})
		return
	}
	httpapi.WriteRaw(w, http.StatusOK, b)
}
