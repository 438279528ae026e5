package realprograms

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// Expected returns the official engine's output of a real-like program.
func (p Program) Expected() ([]byte, error) {
	return os.ReadFile(filepath.Join(p.Dir, "expected.yaml"))
}

// ExpectedObjects returns the Kubernetes objects of the official engine's
// output, read as the controller reads a stream (YAML 1.2): every document is
// an object, or holds a list of them under "items" alone. ok is false when the
// output is not such objects: the controller's entry points refuse it.
//
// The controller's entry points (the compiler service, `flux-kcl-controller
// build`) hand out objects, not the engine's text, so they are compared with
// these objects rather than with expected.yaml's bytes.
func (p Program) ExpectedObjects() (objects []map[string]any, ok bool, err error) {
	text, err := p.Expected()
	if err != nil {
		return nil, false, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(text))
	for {
		var doc any
		if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
			return objects, true, nil
		} else if err != nil {
			return nil, false, fmt.Errorf("%s expected.yaml: %w", p.Name, err)
		}
		m, isMap := doc.(map[string]any)
		switch {
		case doc == nil:
		case isMap && m["apiVersion"] != nil && m["kind"] != nil:
			objects = append(objects, m)
		case isMap && len(m) == 1 && m["items"] != nil:
			items, _ := m["items"].([]any)
			for _, item := range items {
				obj, isObj := item.(map[string]any)
				if !isObj || obj["apiVersion"] == nil || obj["kind"] == nil {
					return nil, false, nil
				}
				objects = append(objects, obj)
			}
		default:
			return nil, false, nil
		}
	}
}
