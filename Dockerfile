# harnest as a container: a static binary on distroless, running as a
# non-root user, serving the agent folder mounted at /agent.
#
#   docker build -t harnest .
#   docker run -p 1907:1907 -v "$PWD/my-agent:/agent:ro" harnest
#
# The folder's config.yaml must set server.http.allowRemote: true (the
# container listens on 0.0.0.0) and should set auth.tokens. Agents whose
# backend runs a program (exec, workers, exec tools, stdio MCP servers)
# need that program's runtime in the image: build FROM it instead and copy
# /harnest in.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /harnest ./cmd/harnest

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /harnest /harnest
USER nonroot:nonroot
EXPOSE 1907
ENTRYPOINT ["/harnest", "serve", "/agent", "--host", "0.0.0.0", "--port", "1907", "--log-format", "json", "--shutdown-grace", "20s", "--drain-delay", "5s"]
