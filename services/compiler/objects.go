package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"go.yaml.in/yaml/v3"
)

// splitObjects turns the YAML stream printed by the engine into one JSON document
// per Kubernetes object. Empty documents are skipped; a document holding only an
// "items" list (the KRM ResourceList habit of many KCL programs) contributes its
// items. Anything else that is not an object with apiVersion and kind is refused,
// because applying it would fail later with a far less useful message.
func splitObjects(stream []byte) ([][]byte, error) {
	// YAML 1.2 (yaml.v3), as the official engine emits: a key such as "n" or "on"
	// is a string, not the YAML 1.1 boolean sigs.k8s.io/yaml would make of it.
	decoder := yaml.NewDecoder(bytes.NewReader(stream))
	var objects [][]byte
	for doc := 1; ; doc++ {
		var value any
		err := decoder.Decode(&value)
		if errors.Is(err, io.EOF) {
			return objects, nil
		}
		if err != nil {
			return nil, fmt.Errorf("document %d: not valid YAML: %w", doc, err)
		}
		if value == nil {
			continue
		}
		where := fmt.Sprintf("document %d", doc)
		value, err = jsonCompatible(value, where)
		if err != nil {
			return nil, err
		}
		found, err := objectsIn(value, where)
		if err != nil {
			return nil, err
		}
		objects = append(objects, found...)
	}
}

// jsonCompatible turns the maps yaml.v3 decodes with non-string keys into
// JSON objects, refusing keys that are not scalars.
func jsonCompatible(value any, where string) (any, error) {
	switch v := value.(type) {
	case map[string]any:
		for k, item := range v {
			converted, err := jsonCompatible(item, where)
			if err != nil {
				return nil, err
			}
			v[k] = converted
		}
		return v, nil
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, item := range v {
			switch k.(type) {
			case string, int, int64, uint64, float64, bool:
			default:
				return nil, fmt.Errorf("%s has a mapping key of type %T", where, k)
			}
			converted, err := jsonCompatible(item, where)
			if err != nil {
				return nil, err
			}
			m[fmt.Sprint(k)] = converted
		}
		return m, nil
	case []any:
		for i, item := range v {
			converted, err := jsonCompatible(item, where)
			if err != nil {
				return nil, err
			}
			v[i] = converted
		}
		return v, nil
	default:
		return v, nil
	}
}

func objectsIn(value any, where string) ([][]byte, error) {
	fields, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s is a %s, not a Kubernetes object", where, jsonTypeName(value))
	}
	if items, ok := fields["items"].([]any); ok && len(fields) == 1 {
		var objects [][]byte
		for i, item := range items {
			found, err := objectsIn(item, fmt.Sprintf("%s, items[%d]", where, i))
			if err != nil {
				return nil, err
			}
			objects = append(objects, found...)
		}
		return objects, nil
	}
	for _, key := range []string{"apiVersion", "kind"} {
		if s, _ := fields[key].(string); s == "" {
			return nil, fmt.Errorf("%s is not a Kubernetes object: %q is missing or not a string", where, key)
		}
	}
	if _, ok := fields["metadata"].(map[string]any); !ok {
		return nil, fmt.Errorf("%s is not a Kubernetes object: \"metadata\" is missing or not a mapping", where)
	}
	object, err := json.Marshal(fields)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return [][]byte{object}, nil
}

func jsonTypeName(value any) string {
	switch value.(type) {
	case []any:
		return "list"
	case string:
		return "string"
	case int, int64, uint64, float64:
		return "number"
	case bool:
		return "boolean"
	case map[string]any:
		return "mapping"
	default:
		return fmt.Sprintf("%T", value)
	}
}
