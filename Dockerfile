# The plumb GitHub Action's image: one static binary, nothing else.
# Everything is fetched at build time (the Go module proxy, pinned in
# go.sum); the action downloads nothing when it runs.

# --- build -----------------------------------------------------------------
FROM golang:1.26.8-bookworm AS build
WORKDIR /src
ENV GOTOOLCHAIN=local \
    GOFLAGS=-mod=readonly \
    CGO_ENABLED=0
COPY go.mod go.sum ./
# Patched copies of dependencies, named by go.mod's replace lines
# (third_party/kyaml/PLUMB.md, third_party/kustomize-api/PLUMB.md).
COPY third_party ./third_party
RUN go mod download && go mod verify
COPY cmd ./cmd
COPY internal ./internal
# The embedded defaults (the checks catalog, the built-in rules).
COPY reference ./reference
ARG VERSION=dev
RUN go build -trimpath -ldflags="-s -w -X github.com/plumb-ci/plumb/internal/pipeline.Version=${VERSION}" \
      -o /out/plumb ./cmd/plumb \
 && /out/plumb version

# --- run -------------------------------------------------------------------
# distroless static: no shell, no package manager, CA certificates for the
# GitHub API.
FROM gcr.io/distroless/static-debian12
ARG VERSION=dev
ARG REVISION=unknown
LABEL org.opencontainers.image.title="plumb" \
      org.opencontainers.image.description="Checks Kubernetes manifests in pull requests and reports every finding at the source line to edit" \
      org.opencontainers.image.source="https://github.com/plumb-ci/plumb" \
      org.opencontainers.image.url="https://github.com/plumb-ci/plumb" \
      org.opencontainers.image.documentation="https://github.com/plumb-ci/plumb/blob/main/docs/github-action.md" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
COPY --from=build /out/plumb /usr/local/bin/plumb
COPY LICENSE NOTICE /usr/share/doc/plumb/
# Not root. UID 1001 is the user of GitHub-hosted runners: a Docker action
# must write the runner's files (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY) and the
# workspace (the SARIF file), which belong to that user. See docs/github-action.md.
USER 1001:1001
WORKDIR /github/workspace
ENTRYPOINT ["/usr/local/bin/plumb"]
