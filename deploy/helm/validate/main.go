// Command validate reads the manifests `helm template` renders (YAML documents on stdin) and decodes each into
// its Kubernetes API type, strictly: an unknown field, a wrong type or an unknown kind fails. It stands in for a
// schema validator (kubeconform's schemas are downloaded from GitHub, which this machine does not reach); the
// types are the API's own, from k8s.io/api.
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func main() {
	input, err := io.ReadAll(bufio.NewReader(os.Stdin))
	if err != nil {
		fail("reading stdin: %v", err)
	}
	checked := 0
	for _, document := range bytes.Split(input, []byte("\n---")) {
		if len(bytes.TrimSpace(stripComments(document))) == 0 {
			continue
		}
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if err := yaml.Unmarshal(document, &head); err != nil {
			fail("a document is not YAML: %v", err)
		}
		var object any
		switch head.APIVersion + " " + head.Kind {
		case "apps/v1 Deployment":
			object = &appsv1.Deployment{}
		case "v1 Service":
			object = &corev1.Service{}
		case "v1 ConfigMap":
			object = &corev1.ConfigMap{}
		case "v1 Secret":
			object = &corev1.Secret{}
		default:
			fail("unexpected kind %q %q", head.APIVersion, head.Kind)
		}
		if err := yaml.UnmarshalStrict(document, object); err != nil {
			fail("%s: %v", head.Kind, err)
		}
		checked++
		fmt.Printf("ok    %s %s\n", head.APIVersion, head.Kind)
	}
	if checked == 0 {
		fail("no manifest on stdin")
	}
	fmt.Printf("manifests: %d valid\n", checked)
}

func stripComments(document []byte) []byte {
	var kept []string
	for _, line := range strings.Split(string(document), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			kept = append(kept, line)
		}
	}
	return []byte(strings.Join(kept, "\n"))
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "FAIL  "+format+"\n", args...)
	os.Exit(1)
}
