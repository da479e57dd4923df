#!/bin/sh
# Regenerates the expected outputs of golden_test.go with the helm CLI of
# the library version plumb pins (helm.sh/helm/v4 v4.3.1):
#
#   go build -o /tmp/helm helm.sh/helm/v4/cmd/helm   (in a module requiring helm.sh/helm/v4 v4.3.1)
#   HELM=/tmp/helm sh internal/render/helm/testdata/golden/gen.sh
#
# Every case is `helm template --include-crds --kube-version v1.37.0` with
# the default release name and namespace; cases.txt lists them (name,
# chart directory under ../repo or the corpus, values files).
# tgzdep/charts/cache-0.1.0.tgz was made with `helm package` from a chart
# named cache (its sources are inside the archive).
set -eu
HELM=${HELM:-helm}
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(cd "$here/../../../../.." && pwd)/../shared/corpus/realworld
while read -r name root chart values; do
  case "$name" in ''|'#'*) continue ;; esac
  case "$root" in repo) base="$here/../repo" ;; corpus) base="$corpus" ;; esac
  args=""
  for v in $(echo "$values" | tr ',' ' '); do [ "$v" = "-" ] || args="$args -f $v"; done
  (cd "$base" && "$HELM" template "$chart" --include-crds --kube-version v1.37.0 $args) > "$here/$name.yaml"
done < "$here/cases.txt"
