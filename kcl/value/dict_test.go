package value

import (
	"strconv"
	"testing"
)

func TestDictOrderAndDelete(t *testing.T) {
	d := NewDict(0)
	for i := range 12 { // crosses the small-dict threshold
		d.Set("k"+strconv.Itoa(i), Int(i))
	}
	d.Set("k3", Int(33)) // keeps its position
	if d.At(3).Value != Int(33) || d.Len() != 12 {
		t.Fatalf("set kept position: %v", d)
	}
	d.Delete("k1") // swap_remove: the last key takes k1's place
	if d.At(1).Key != "k11" || d.Has("k1") {
		t.Errorf("swap remove: %v", d.Keys())
	}
	d.DeleteOrdered("k0")
	if d.At(0).Key != "k11" || d.Len() != 10 {
		t.Errorf("ordered remove: %v", d.Keys())
	}
	for _, k := range d.Keys() {
		if _, ok := d.Get(k); !ok {
			t.Errorf("lookup %s after deletes", k)
		}
	}
}

func TestDictText(t *testing.T) {
	d := DictOf("a", Str("x"), "b", NewList([]Value{Str("y"), Int(1)}), "c", Str("it's"), "d", None, "e", Float(2))
	if got, want := d.String(), `{'a': 'x', 'b': [y, 1], 'c': 'it's', 'd': None, 'e': 2.0}`; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}

func BenchmarkDictInsert(b *testing.B) {
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = "key" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		d := NewDict(0)
		for _, k := range keys {
			d.Set(k, Int(1))
		}
	}
}

func BenchmarkDictLookupSmall(b *testing.B) {
	d := DictOf("apiVersion", Str("v1"), "kind", Str("Pod"), "metadata", NewDict(0), "spec", NewDict(0))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := d.Get("spec"); !ok {
			b.Fatal("missing")
		}
	}
}

func BenchmarkDictLookupLarge(b *testing.B) {
	d := NewDict(0)
	for i := range 1000 {
		d.Set("key"+strconv.Itoa(i), Int(i))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := d.Get("key777"); !ok {
			b.Fatal("missing")
		}
	}
}
