package syntax

import (
	"reflect"
	"testing"
)

// countNodes counts every node reachable from v by reflection (comments of
// the module excluded), the reference for Walk.
func countNodes(v reflect.Value, skipComments bool) int {
	n := 0
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			n += countNodes(v.Elem(), skipComments)
		}
	case reflect.Struct:
		if _, ok := v.Addr().Interface().(Node); ok && v.Type() != spanType {
			n++
		}
		for i := 0; i < v.NumField(); i++ {
			if skipComments && v.Type().Field(i).Name == "Comments" {
				continue
			}
			n += countNodes(v.Field(i), false)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			n += countNodes(v.Index(i), skipComments)
		}
	}
	return n
}

func TestWalkVisitsEveryNode(t *testing.T) {
	srcs := [][]byte{largeProgram(200)}
	for _, s := range fuzzSeeds {
		srcs = append(srcs, []byte(s))
	}
	for _, src := range srcs {
		m, _ := ParseFileAll("main.k", src)
		visited, depth, maxDepth := 0, 0, 0
		Walk(m, func(n Node) bool {
			if n == nil {
				depth--
				return false
			}
			visited++
			depth++
			maxDepth = max(maxDepth, depth)
			return true
		})
		if depth != 0 {
			t.Errorf("unbalanced walk: %d", depth)
		}
		if want := countNodes(reflect.ValueOf(m).Elem().Addr(), true); visited != want {
			t.Errorf("visited %d nodes, the tree has %d\n%s", visited, want, src[:min(len(src), 200)])
		}
	}
}

func TestWalkFindsStrings(t *testing.T) {
	m, _ := ParseFile("main.k", []byte("a = {b: [\"x\", lambda { \"y\" }]}\nschema S:\n    c: str = \"z\"\n"))
	var got []string
	Walk(m, func(n Node) bool {
		if s, ok := n.(*StringLit); ok {
			got = append(got, s.Value)
		}
		return true
	})
	if len(got) != 3 || got[0] != "x" || got[1] != "y" || got[2] != "z" {
		t.Errorf("strings %q", got)
	}
}
