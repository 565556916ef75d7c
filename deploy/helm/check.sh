#!/usr/bin/env bash
# Checks the Helm chart without a cluster (none runs here): `helm lint`, `helm template` with a scenario, a token
# and extra arguments, every rendered manifest decoded strictly into its Kubernetes API type (validate/, Go), and
# the refusal to render without an admin token.
#   deploy/helm/check.sh        # needs helm (go install helm.sh/helm/v4/cmd/helm@v4.3.2) and Go
set -euo pipefail
cd "$(dirname "$0")"
HELM="${HELM:-$(command -v helm || echo "$(go env GOPATH)/bin/helm")}"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cat > "$scratch/values.yaml" <<'VALUES'
replicas: 3
adminToken: {value: test-token}
args: ["--instant", "--max-tests", "100"]
otlpEndpoint: http://otel-collector:4318
scenario: |
  cuecard: 1
  routes:
    - steps: [{text: "Hello from the cluster"}]
VALUES
"$HELM" lint cuecard -f "$scratch/values.yaml"
"$HELM" template load cuecard -f "$scratch/values.yaml" > "$scratch/rendered.yaml"
(cd validate && go run . < "$scratch/rendered.yaml")
grep -q 'checksum/scenario' "$scratch/rendered.yaml"
grep -q -- '- "--max-tests"' "$scratch/rendered.yaml"
if "$HELM" template load cuecard > "$scratch/no-token.txt" 2>&1; then
  echo "FAIL  the chart rendered without an admin token"; exit 1
fi
grep -q "set adminToken.value or adminToken.existingSecret" "$scratch/no-token.txt"
"$HELM" template load cuecard --set adminToken.existingSecret=mine | (cd validate && go run .) > /dev/null
echo "helm chart: lint, template, strict decoding, the token's refusal: 4 passed, 0 failed"
